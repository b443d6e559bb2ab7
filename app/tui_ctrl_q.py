"""Ctrl+Q (`app.quit`): quits at once when nothing is under way. While a turn runs or an
approval question waits, quitting would throw the turn away, so the first press only
asks, as Ctrl+C's does on an empty composer (app/tui_ctrl_c.py): a second press within
ASK_WINDOW seconds quits. The question is a toast, seen over a dialog too; keys typed
ahead cannot answer it, since only the quit key itself does.

The clock is injected: the tests move it instead of waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rivulet.widgets.compat.textual import keymap
from rivulet.widgets.dialogs import ApprovalScreen

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp

ASK_WINDOW = 2.0  # seconds: a second press sooner than this quits (time to read the question)
DEFAULT_KEY = "ctrl+q"


def ask_text(key: str) -> str:
    return f"A turn is running: {key} again quits"  # short: a toast at 80 columns wraps


class CtrlQ:
    def __init__(self, app: RivuletApp, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.clock = clock
        self._asked_at: float | None = None

    def press(self) -> None:
        asked, self._asked_at = self._asked_at, None
        if not self.busy() or (asked is not None and self.clock() - asked <= ASK_WINDOW):
            self.app.exit()
            return
        self._asked_at = self.clock()
        self.app.notify(ask_text(self.key()), severity="warning", timeout=ASK_WINDOW)

    def busy(self) -> bool:
        """A turn runs, as the status line shows it (once it says "Done", the worker's last
        bookkeeping loses nothing), or a question waits."""
        turn = self.app.turn_worker
        running = turn is not None and turn.is_running and self.app.chat.status.line.state in ("working", "retrying")
        return running or isinstance(self.app.screen, ApprovalScreen)

    def key(self) -> str:
        """The key the user has for it (a [keymap] may have moved it)."""
        keys = keymap(self.app).get("app.quit", DEFAULT_KEY)
        return keys.split(",")[0].strip() or DEFAULT_KEY
