"""Esc on a screen above the chat: that screen's own Esc runs (it closes it).

The app's Esc (stop the turn) is a priority binding, so Textual offers the key to it
before any screen sees it: the pickers' "esc: cancel" was never reached, and the next
Enter picked an option. The app asks here first. The approval question is left alone:
Esc there stops the turn, and the turn's end takes the question away.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from .dialogs import ApprovalScreen


def escape_action(screen: Screen[object]) -> str:
    """The action the screen binds to Esc (every modal screen can at least dismiss)."""
    for cls in type(screen).__mro__:
        for binding in getattr(cls, "BINDINGS", ()):
            if isinstance(binding, Binding) and "escape" in binding.key.split(","):
                return binding.action
    return "dismiss"


def close_top_screen(app: App[Any]) -> bool:
    """Run the top screen's Esc if it is one Esc closes; False: not for this screen."""
    screen = app.screen
    if screen is app.screen_stack[0] or isinstance(screen, ApprovalScreen):
        return False
    app.call_next(screen.run_action, escape_action(screen))
    return True
