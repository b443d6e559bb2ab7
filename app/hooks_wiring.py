"""The chat's hooks: made from the settings before its engine, which runs them (core/engine.py:
session_start when it starts, the turn's and tools' events, session_end when it closes).
A late problem with the tables is a notice, not a crash (prepare() checked them first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core.errors import ConfigError
from rivulet.core.turn.bus import Notice

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp
    from rivulet.core.hooks.dispatch import Hooks


def hooks_for_app(app: RivuletApp) -> Hooks | None:
    """The hooks for the app's engine (None: none configured, or tools given from outside)."""
    from rivulet.core.hooks.wiring import make_hooks

    if app.settings is None or app.tool_settings is None or app.tools is not None:
        return None
    try:
        hooks, ignored = make_hooks(app.settings, app.tool_settings.workspace, app.bus, app.tool_settings.secrets)
    except ConfigError as exc:
        app.bus.publish(Notice(exc.message))
        return None
    if ignored:
        app.bus.publish(Notice(ignored))
    return hooks if hooks else None
