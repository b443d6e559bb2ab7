"""The composer's completion popup: choices that narrow as you type, picked with keys.

The popup knows nothing of commands or files: *providers* say what to offer. A
provider is any object with one method,

    def find(self, text: str, cursor: tuple[int, int]) -> Trigger | None

called on every edit and cursor move with the composer's whole text and its cursor
(row, column). It returns None when it has nothing to offer there, else a `Trigger`:
the span of text a choice replaces (`start`, `end`, as (row, column)) and the
entries, best first. The first provider (in the order they were added) that returns
a Trigger wins. `find` runs on every keystroke: it must be quick and return None at
once unless its trigger is right there (the `/` provider only answers while the
whole text is one `/word`; an `@` provider would answer for `@partial` under the
cursor).

A `Completion` has the text that replaces the span (`value`), what the list shows
(`label`, `help`; shown as plain text, never markup: a file name is hostile text) and
`submit`: whether picking it with Enter also sends the composer's text (a slash
command runs at once; a file path is inserted and typing goes on).

Keys while the popup is open (handled by the composer): Up/Down move, Tab inserts the
highlighted entry, Enter inserts it (and sends when `submit`), Esc closes it until
the text changes (the app's Esc asks `Composer.close_completion()` first, so closing
the popup never interrupts a turn). A click on an entry inserts it, as Tab does.

Plugging in: `composer.add_completion_provider(provider)` (the app does it at mount).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from rich.text import Text
from textual.fuzzy import Matcher
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from rivulet.core.sanitize import one_row

MAX_ROWS = 8  # the popup's height at most; the list scrolls past it


@dataclass(frozen=True)
class Completion:
    value: str  # replaces the trigger's span
    label: str  # shown in the list
    help: str = ""
    submit: bool = False  # Enter also sends the text


@dataclass(frozen=True)
class Trigger:
    start: tuple[int, int]
    end: tuple[int, int]
    query: str  # the text typed so far (what the entries were ranked by)
    entries: list[Completion] = field(default_factory=list)


class CompletionProvider(Protocol):
    def find(self, text: str, cursor: tuple[int, int]) -> Trigger | None: ...


def fuzzy_rank(query: str, candidates: list[tuple[str, Completion]]) -> list[Completion]:
    """(key, entry) pairs whose key fuzzily matches `query`, best first; ties keep
    their order. An empty query keeps every entry, in order."""
    if not query:
        return [entry for _, entry in candidates]
    matcher = Matcher(query)
    scored = [(matcher.match(key), n, entry) for n, (key, entry) in enumerate(candidates)]
    return [entry for score, _, entry in sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))]


class CompletionPopup(OptionList):
    """The list itself: never focused (typing stays in the composer), hidden when empty."""

    can_focus = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: list[Completion] = []
        self.display = False
        self.on_pick: Callable[[int], None] | None = None  # the composer's: a click picked an entry

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.on_pick is not None:
            self.on_pick(event.option_index)

    def show(self, entries: list[Completion]) -> None:
        if entries == self.entries and self.display:
            return  # unchanged: keep the highlight where the user moved it
        self.entries = list(entries)
        width = min(30, max((len(one_row(e.label)) for e in entries), default=0))  # the help texts in a column
        self.set_options([self._option(e, width) for e in entries])
        self.display = bool(entries)
        if entries:
            self.highlighted = 0
        self.styles.height = min(MAX_ROWS, len(entries)) + 2  # + the border

    def hide(self) -> None:
        self.display = False
        self.entries = []
        self.clear_options()

    @property
    def is_open(self) -> bool:
        return bool(self.display and self.entries)

    @property
    def current(self) -> Completion | None:
        index = self.highlighted
        if not self.is_open or index is None or not 0 <= index < len(self.entries):
            return None
        return self.entries[index]

    def move(self, step: int) -> None:
        if self.is_open:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.entries)

    @staticmethod
    def _option(entry: Completion, width: int) -> Option:
        # One row each, whatever the name holds: a newline in a file name is shown as ␊.
        shown = one_row(entry.label)
        label = Text(shown, style="bold", no_wrap=True, overflow="ellipsis")
        if entry.help:
            label.append(" " * max(2, width - len(shown) + 2))
            label.append(one_row(entry.help), style="dim")
        return Option(label)
