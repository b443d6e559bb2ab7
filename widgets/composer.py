"""The composer: multi-line input. Enter sends, ctrl+j (or shift+enter) adds a newline,
Up on the first line recalls earlier prompts. Bindings have ids, so users can remap them."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea


class Composer(TextArea):
    BINDINGS = [
        Binding("enter", "submit", "Send", id="composer.submit", priority=True),
        Binding("ctrl+j,shift+enter", "newline", "Newline", id="composer.newline", priority=True),
        Binding("up", "recall(-1)", "Previous prompt", id="composer.previous", show=False),
        Binding("down", "recall(1)", "Next prompt", id="composer.next", show=False),
    ]

    @dataclass
    class Submitted(Message):
        composer: "Composer"
        text: str

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.prompts: list[str] = []
        self._recall: int | None = None
        self._draft = ""

    def action_submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.prompts or self.prompts[-1] != text:
            self.prompts.append(text)
        self._recall = None
        self.clear()
        self.post_message(self.Submitted(self, text))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_recall(self, step: int) -> None:
        row, _ = self.cursor_location
        at_edge = row == 0 if step < 0 else row == self.document.line_count - 1
        if not at_edge or not self.prompts or (step > 0 and self._recall is None):
            # Ordinary cursor movement.
            self.action_cursor_up() if step < 0 else self.action_cursor_down()
            return
        if self._recall is None:
            self._draft = self.text
            self._recall = len(self.prompts)
        self._recall = max(0, min(len(self.prompts), self._recall + step))
        text = self._draft if self._recall == len(self.prompts) else self.prompts[self._recall]
        if self._recall == len(self.prompts):
            self._recall = None
        self.load_text(text)
        self.move_cursor(self.document.end)

    def restore(self, text: str) -> None:
        """Put unsent text back (an interrupted turn that sent nothing)."""
        self.load_text(text)
        self.move_cursor(self.document.end)
