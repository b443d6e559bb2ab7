"""The /undo and /redo question: what will be put back (the diff), what is left alone
(files changed since, files whose content was not kept), and, for every command the
turns ran, that what it did outside the workspace or over the network stays done.

Dismissed with "yes", "overwrite" (put back the files changed since too) or None.
Every line is untrusted (file names, commands, file contents): sanitised, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from .dialogs import diff_text
from .safe import safe_text


class UndoScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    #undo { width: 90%; height: 90%; padding: 1 2; border: thick $warning; background: $surface; }
    #undo-body { height: 1fr; background: $panel; }
    #undo-buttons { height: auto; margin: 1 0 0 0; }
    #undo-buttons Button { margin: 0 1 0 0; min-width: 10; }
    """
    BINDINGS = [
        Binding("y", "answer('yes')", "Yes", id="undo.yes"),
        Binding("o", "answer('overwrite')", "Overwrite my changes too", id="undo.overwrite"),
        Binding("n,escape", "answer('no')", "No", id="undo.no"),
    ]

    def __init__(self, direction: str, lines: list[str], diff: str, conflicts: bool) -> None:
        super().__init__()
        self.direction = direction
        self.lines = lines
        self.diff = diff
        self.conflicts = conflicts

    def compose(self) -> ComposeResult:
        verb = "Undo" if self.direction == "undo" else "Redo"
        with Vertical(id="undo"):
            yield Static(Text(f"{verb}? Files go back as shown; y: yes · n/esc: no"
                              + (" · o: overwrite your changes too" if self.conflicts else ""), style="bold"))
            for line in self.lines:
                yield Static(safe_text(line), classes="undo-line")
            with VerticalScroll(id="undo-body"):
                yield Static(diff_text(self.diff) if self.diff else Text("No file content changes.", style="italic"),
                             id="undo-diff")
            with Horizontal(id="undo-buttons"):
                yield Button(f"{verb} (y)", id="yes", variant="success", compact=True)
                if self.conflicts:
                    yield Button("Overwrite mine too (o)", id="overwrite", variant="error", compact=True)
                yield Button("No (n)", id="no", variant="primary", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_answer(str(event.button.id))

    def action_answer(self, value: str) -> None:
        if value == "overwrite" and not self.conflicts:
            return
        self.dismiss(None if value == "no" else value)
