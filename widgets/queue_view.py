"""The messages waiting above the composer while a turn runs (issue 25).

Two kinds wait: *queued* messages (Enter during a turn), sent as turns of their own
once the running one ends, in order; and *steered* ones (the steer key), which go into
the running turn at its next request and cannot be taken back. One row each, the
message's first line, sanitised and cut with "…" to the width: a message is the
user's, but it may hold pasted escape sequences or a 10,000-line log.

The user moves into the list (alt+up from the composer), moves with up/down, puts an
entry back in the composer to edit it (Enter or `e`), drops it (Delete, Backspace or
`d`) or steers it into the running turn (`s`). The widget only shows and reports: the
entries are app/handlers/queue.py's, and it is told what to show and called back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from rivulet.core.sanitize import one_row

MAX_ROWS = 4  # queued rows shown at most; the rest are counted ("+3 more")


def row_text(text: str) -> str:
    """A message as one row: its first line with text, and how many lines follow."""
    lines = [line for line in text.splitlines() if line.strip()]
    first = one_row(" ".join(lines[0].split())) if lines else ""
    more = len(lines) - 1
    return f"{first} (+{more} line{'s' if more > 1 else ''})" if more > 0 else first


class QueueView(Static, can_focus=True):
    BINDINGS = [
        Binding("up,k", "move(-1)", "Previous", id="queue.previous", show=False),
        Binding("down,j", "move(1)", "Next", id="queue.next", show=False),
        Binding("enter,e", "edit", "Edit", id="queue.edit"),
        Binding("delete,backspace,d", "drop", "Drop", id="queue.drop"),
        Binding("s", "steer", "Steer", id="queue.steer"),
    ]

    DEFAULT_CSS = """
    QueueView { height: auto; max-height: 7; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.queued: list[str] = []
        self.steering: list[str] = []
        self.index = 0  # the entry the keys act on while the list has the focus
        self.hint = ""  # the keys to reach the list (their current bindings)
        self.focused_hint = ""  # the keys to use it, while it has them
        # Set by the handler: each gets the index of the entry.
        self.on_edit: Callable[[int], None] | None = None
        self.on_drop: Callable[[int], None] | None = None
        self.on_steer: Callable[[int], None] | None = None
        self.on_leave: Callable[[], None] | None = None
        self.display = False

    def show(self, queued: list[str], steering: list[str]) -> None:
        self.queued, self.steering = list(queued), list(steering)
        self.index = max(0, min(self.index, len(self.queued) - 1))
        self.display = bool(queued or steering)
        if self.has_focus and not self.queued and self.on_leave is not None:
            self.on_leave()  # nothing left to act on: typing goes on
        self._draw()

    def _draw(self) -> None:
        rows: list[Text] = []
        for text in self.steering:
            rows.append(Text.assemble(("↪ steering ", "bold"), row_text(text), (" (with the next request)", "dim")))
        first = max(0, min(self.index - MAX_ROWS + 1, len(self.queued) - MAX_ROWS))
        for n, text in enumerate(self.queued[first:first + MAX_ROWS], start=first):
            chosen = self.has_focus and n == self.index
            rows.append(Text.assemble(("▸ " if chosen else "  ", "bold"), (f"queued {n + 1} ", "dim"),
                                      (row_text(text), "reverse" if chosen else "")))
        hidden = len(self.queued) - min(MAX_ROWS, len(self.queued))
        if hidden:
            rows.append(Text(f"  +{hidden} more", style="dim"))
        hint = self.focused_hint if self.has_focus else self.hint
        if hint and self.queued:
            rows.append(Text(hint, style="dim"))
        self.update(Text("\n").join(rows))  # one row each: cut with "…" by the CSS

    def watch_has_focus(self, has_focus: bool) -> None:
        super().watch_has_focus(has_focus)
        if has_focus:
            self.index = len(self.queued) - 1  # the newest first, as alt+up in Codex
        self._draw()

    def action_move(self, step: int) -> None:
        if step > 0 and self.index >= len(self.queued) - 1:
            if self.on_leave is not None:
                self.on_leave()  # down past the last entry: back to the composer
            return
        self.index = max(0, self.index + step)
        self._draw()

    def _act(self, callback: Callable[[int], None] | None) -> None:
        if callback is not None and 0 <= self.index < len(self.queued):
            callback(self.index)

    def action_edit(self) -> None:
        self._act(self.on_edit)

    def action_drop(self) -> None:
        self._act(self.on_drop)

    def action_steer(self) -> None:
        self._act(self.on_steer)
