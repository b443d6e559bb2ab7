"""ctrl+t: the turns that changed files, newest first, each with its diff; `u` undoes the
highlighted turn (and every later one) after the /undo question.

It is a DiffScreen (the same frame and ids): the highlighted turn's diff is the body.
Row labels and diffs are file names and contents: sanitised, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .dialogs import DiffScreen, diff_text
from .safe import safe_text


@dataclass(frozen=True)
class TurnRow:
    turn: int | None  # None: the turn under way (its patches so far; no checkpoint yet)
    label: str
    diff: str
    undoable: bool = False


class TurnListScreen(DiffScreen):
    DEFAULT_CSS = """
    #turns-list { height: auto; max-height: 8; margin: 0 0 1 0; }
    """
    BINDINGS = [Binding("escape,q,ctrl+t", "dismiss", "Close", id="diff.close"),
                Binding("u", "undo", "Undo this turn", id="diff.undo")]

    def __init__(self, rows: list[TurnRow]) -> None:
        super().__init__(rows[0].diff if rows else "")
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="diff"):
            yield Static(Text("Turns that changed files  (↑↓ pick · u: undo back to before it · esc: close)",
                              style="bold"))
            if len(self.rows) > 1:
                yield OptionList(*[Option(safe_text(r.label)) for r in self.rows], id="turns-list")
            with VerticalScroll(id="diff-body"):
                yield Static(self._body(0), id="turn-diff")

    def _body(self, n: int) -> Text:
        if not self.rows or not self.rows[n].diff:
            return Text("No changes in this turn.", style="italic")
        return diff_text(self.rows[n].diff)

    def _highlighted(self) -> int:
        lists = self.query(OptionList)
        return (lists.first().highlighted or 0) if lists else 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.query_one("#turn-diff", Static).update(self._body(event.option_index))

    def action_undo(self) -> None:
        if not self.rows:
            return
        row = self.rows[self._highlighted()]
        if row.turn is None or not row.undoable:
            self.notify("That turn cannot be undone here (it is under way, or already undone)", severity="warning")
            return
        self.dismiss(row.turn)  # type: ignore[arg-type]
