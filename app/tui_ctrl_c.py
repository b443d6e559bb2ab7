"""Ctrl+C, as in a shell and in Codex or Claude Code, one key for "stop that":

- selected text (the transcript's mouse selection, or the composer's) is copied, and so
  are the lines of the line-select mode (widgets/line_select.py);
- a picker, view or the palette closes, as Esc closes it;
- a running turn is interrupted, as Esc does (an approval question with it);
- a composer with text is cleared, and the draft kept: Up brings it back;
- on an empty composer it says "Ctrl+C again to quit", and a second press within
  QUIT_WINDOW seconds quits.

The clock is injected: the tests move it instead of waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rivulet.widgets.line_select import LineSelect

if TYPE_CHECKING:
    from textual.timer import Timer

    from rivulet.app.tui import RivuletApp

QUIT_WINDOW = 1.0  # seconds: a second Ctrl+C sooner than this quits
QUIT_HINT = "Ctrl+C again to quit"


class CtrlC:
    def __init__(self, app: RivuletApp, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.clock = clock
        self._armed_at: float | None = None  # when the first press on an empty composer came
        self._hint_timer: Timer | None = None
        self._note_before: str | None = None

    def press(self) -> None:
        app = self.app
        armed, self._armed_at = self._armed_at, None
        if isinstance(app.focused, LineSelect):  # its lines, copied the way its y copies them
            app.focused.action_copy()
            return
        if self._copy_selection():
            return
        turn = app.turn_worker
        if app.screen is not app.screen_stack[0] or (turn is not None and turn.is_running):
            self._hide_hint()
            app.action_interrupt()  # a picker closes; an approval question and its turn stop
            return
        composer = app.chat.composer
        if composer.text:
            composer.clear_keeping_draft()
            return
        if armed is not None and self.clock() - armed <= QUIT_WINDOW:
            app.exit()
            return
        self._armed_at = self.clock()
        self._show_hint()

    def _copy_selection(self) -> bool:
        app = self.app
        selected = app.screen.get_selected_text()
        if selected:
            app.copy_to_clipboard(selected)
            app.screen.clear_selection()
            return True
        composer = app.chat.composer
        if app.focused is composer and composer.selected_text:
            app.copy_to_clipboard(composer.selected_text)
            return True
        return False

    def _show_hint(self) -> None:
        """The hint in the status line (where the eye is), for as long as it holds."""
        status = self.app.chat.status
        if self._hint_timer is None:
            self._note_before = status.line.note
        else:
            self._hint_timer.stop()
        status.say(QUIT_HINT)
        self._hint_timer = self.app.set_timer(QUIT_WINDOW, self._hint_expired)

    def _hint_expired(self) -> None:
        """The timer only wakes this up: the window is measured on `clock`, as the second press
        is (a loaded machine's late frame, or a test's clock, must not hide a hint still in force)."""
        left = QUIT_WINDOW - (self.clock() - (self._armed_at or 0.0))
        if left > 0 and self._hint_timer is not None:
            self._hint_timer = self.app.set_timer(max(left, 0.05), self._hint_expired)
            return
        self._hide_hint()

    def _hide_hint(self) -> None:
        if self._hint_timer is None:
            return
        self._hint_timer.stop()
        self._hint_timer = None
        status = self.app.chat.status
        if status.line.note == QUIT_HINT:
            status.say(self._note_before)
