"""Find in the transcript (ctrl+f): a search line above the composer. Typing finds the
entries whose text contains the query (case-insensitive), frozen old ones included;
Enter or Down goes to the next match, shift+Enter or Up to the previous; Esc closes it
and typing returns to the composer. The current match is scrolled to the top of the
view (and marked, when it is a widget); a match inside a collapsed Thought or tool output
is expanded, so what was found is on screen."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Collapsible, Input

from rivulet.core.kinds import kind_of
from rivulet.widgets.entries import TranscriptEntry
from rivulet.widgets.frozen_entries import FrozenEntries
from rivulet.widgets.subagent_pane import SUBAGENT_TYPE, record_text
from rivulet.widgets.transcript import Transcript


def entry_text(entry: TranscriptEntry) -> str:
    return item_text(entry.item, entry.output)


def item_text(item: dict[str, Any], output: dict[str, Any] | None) -> str:
    """What a search looks through: the text an entry shows, not its JSON keys (its kind says)."""
    if item.get("type") == SUBAGENT_TYPE:
        return record_text(item)  # a subagent's pane: the transcript's own record (issue 41)
    return kind_of(item).search_text(item, output)


class SearchBar(Input):
    BINDINGS = [
        Binding("enter,down,ctrl+n", "step(1)", "Next", id="search.next", show=False),
        Binding("shift+enter,up,ctrl+p", "step(-1)", "Previous", id="search.previous", show=False),
        Binding("escape", "close", "Close", id="search.close", show=False),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(placeholder="find in the transcript · enter: next · up: previous · esc: close",
                         **kwargs)
        # An entry widget, or (the frozen block, the index of one of its entries).
        self.matches: list[TranscriptEntry | tuple[FrozenEntries, int]] = []
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
        transcript = self.app.query_one("#transcript", Transcript)
        self.matches = []
        if query:
            for frozen in transcript.query(FrozenEntries):  # the oldest entries come first
                self.matches += [(frozen, n) for n, (_, item, output) in enumerate(frozen.entries)
                                 if query in item_text(item, output).lower()]
            self.matches += [e for e in transcript.query(TranscriptEntry) if query in entry_text(e).lower()]
        self.current = len(self.matches) - 1  # the newest match first
        self._show()

    def _show(self) -> None:
        if not self.matches:
            self._mark(None)
            self.border_subtitle = "no match" if self.value.strip() else ""
            return
        match = self.matches[self.current]
        self.border_subtitle = f"{self.current + 1}/{len(self.matches)}"
        self._mark(None if isinstance(match, tuple) else match)
        if not isinstance(match, tuple):  # a match inside a collapsed Thought or output is shown
            for collapsed in match.query(Collapsible):
                collapsed.collapsed = False
        self._scroll_to_match(match)
        # Again once the screen is laid out: a transcript still settling (a session just
        # resumed) may be shorter now than it will be, and a scroll clamped to its end
        # would give the view back to following the bottom.
        self.call_after_refresh(self._scroll_to_match, match)

    def _scroll_to_match(self, match: TranscriptEntry | tuple[FrozenEntries, int]) -> None:
        if not self.matches or self.matches[self.current] is not match:
            return  # the search moved on meanwhile
        transcript = self.app.query_one("#transcript", Transcript)
        if isinstance(match, tuple):
            transcript.show_old_entry(*match)
        else:
            # Now, not after the next refresh: a deferred scroll of an earlier keystroke's
            # match landed after the newer one and moved the view off it (CI, 1 run in ~20).
            transcript.scroll_to_widget(match, animate=False, top=True, immediate=True)

    def _mark(self, entry: TranscriptEntry | None) -> None:
        for old in self.app.query(".search-hit"):
            old.remove_class("search-hit")
        if entry is not None:
            entry.add_class("search-hit")
