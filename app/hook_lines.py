"""Hook notes as lines on a terminal (exec's stderr, plain mode's output): sanitised,
one line for a failure, the capped output indented under its heading."""

from __future__ import annotations

import sys
from typing import TextIO

from rivulet.core.hooks.events import HookNote
from rivulet.core.sanitize import sanitize


def hook_lines(note: HookNote) -> list[str]:
    lines = sanitize(note.line()).splitlines() or [""]
    return [lines[0], *("  " + line for line in lines[1:])]


def print_hook_note(note: HookNote, stream: TextIO | None = None, quiet: bool = False) -> None:
    """`quiet` (exec -q) keeps failures and blocks only."""
    if quiet and not note.failed and not note.blocked:
        return
    out = stream or sys.stderr
    for line in hook_lines(note):
        out.write(f"rivulet: {line}\n" if out is sys.stderr else line + "\n")
    out.flush()
