"""The command the user started rivulet with, for hints: core/command_name.py (core's
messages name it too, and core never imports app); here for app's callers."""

from __future__ import annotations

from rivulet.core.command_name import command_name

__all__ = ["command_name"]
