"""The App's key actions that have modules of their own: Ctrl+C (app/tui_ctrl_c.py),
Ctrl+Q (app/tui_ctrl_q.py) and the line-select mode (widgets/line_select.py), whose
copy goes the way every copy of the chat goes (app/copying.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from rivulet.app.copying import copy_text
from rivulet.widgets.line_select import LineSelect

if TYPE_CHECKING:
    from rivulet.app.tui_ctrl_c import CtrlC
    from rivulet.app.tui_ctrl_q import CtrlQ


class KeyActions(App[None]):
    ctrl_c: CtrlC
    ctrl_q: CtrlQ

    def action_ctrl_c(self) -> None:
        self.ctrl_c.press()

    def action_quit_asking(self) -> None:
        self.ctrl_q.press()

    def action_select_lines(self) -> None:
        """The transcript's lines from the keyboard (on the chat's own screen only)."""
        if self.screen is not self.screen_stack[0]:
            return
        select = self.screen.query_one(LineSelect)
        if not select.active:
            select.on_copy = self._copy_lines
            select.enter()

    def _copy_lines(self, text: str) -> None:
        lines = len(text.splitlines())
        said = copy_text(self.copy_to_clipboard, text, f"{lines} line{'s' if lines != 1 else ''}")
        self.notify(said.text, severity=said.severity, timeout=said.timeout or 3, markup=False)
        self.screen.query_one("#composer").focus()  # copied: the mode is over, as tmux's copy mode
