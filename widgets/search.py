"""Find in the transcript (ctrl+f): a search line above the composer. Typing finds the
entries whose text contains the query (case-insensitive); Enter or Down goes to the
next match, shift+Enter or Up to the previous; Esc closes it and typing returns to the
composer. The current match is marked and scrolled into view."""

from __future__ import annotations

import json

from textual.binding import Binding
from textual.widgets import Input

from rivulet.core import items as it
from rivulet.widgets.entries import Entry, output_text, reasoning_summary


def entry_text(entry: Entry) -> str:
    """What a search looks through: the text the entry shows, not its JSON keys."""
    item = entry.item
    if item.get("type") == "message":
        return it.message_text(item) or ""
    if item.get("type") == "reasoning":
        return reasoning_summary(item)
    parts = [str(item.get(k, "")) for k in ("name", "arguments", "input", "action")]
    output = getattr(entry, "output", None)
    if output is not None:
        parts.append(output_text(output))
    return "\n".join(p if isinstance(p, str) else json.dumps(p) for p in parts)


class SearchBar(Input):
    BINDINGS = [
        Binding("enter,down,ctrl+n", "step(1)", "Next", id="search.next", show=False),
        Binding("shift+enter,up,ctrl+p", "step(-1)", "Previous", id="search.previous", show=False),
        Binding("escape", "close", "Close", id="search.close", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="find in the transcript · enter: next · up: previous · esc: close",
                         **kwargs)
        self.matches: list[Entry] = []
        self.current = -1

    def open(self) -> None:
        self.display = True
        self.focus()
        self._search(self.value)

    def action_close(self) -> None:
        self._mark(None)
        self.display = False
        self.app.query_one("#composer").focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._search(event.value)

    def action_step(self, step: int) -> None:
        if self.matches:
            self.current = (self.current + step) % len(self.matches)
            self._show()

    def _search(self, query: str) -> None:
        query = query.strip().lower()
        entries = list(self.app.query_one("#transcript").query(Entry))
        self.matches = [e for e in entries if query and query in entry_text(e).lower()]
        self.current = len(self.matches) - 1  # the newest match first
        self._show()

    def _show(self) -> None:
        if not self.matches:
            self._mark(None)
            self.border_subtitle = "no match" if self.value.strip() else ""
            return
        entry = self.matches[self.current]
        self._mark(entry)
        self.border_subtitle = f"{self.current + 1}/{len(self.matches)}"
        self.app.query_one("#transcript").scroll_to_widget(entry, animate=False, top=True)

    def _mark(self, entry: Entry | None) -> None:
        for old in self.app.query(".search-hit"):
            old.remove_class("search-hit")
        if entry is not None:
            entry.add_class("search-hit")
