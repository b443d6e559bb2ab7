"""A small modal list to pick one value from (a model, an effort, a theme, a policy...).

Enter picks, Esc cancels (the screen is dismissed with None). The current value is
marked and highlighted first. Labels may be server text (model names): shown plain,
sanitised, never as markup.

With a `search` (the sessions picker: the full-text index, issue 40), a field above the
list: what is typed there replaces the list by the search's choices (or one line saying
why there are none); an empty field shows the list as it came.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from rivulet.core.sanitize import sanitize


@dataclass(frozen=True)
class Choice:
    value: str
    label: str = ""  # default: the value
    help: str = ""


# A query's choices, or one line saying why there are none (no hit, a query it cannot read).
ChoiceSearch = Callable[[str], Awaitable[list[Choice] | str]]


class ChoiceScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="choice.cancel"),
        # The search field has the focus: the list's keys still move its highlight.
        Binding("up", "move('cursor_up')", show=False), Binding("down", "move('cursor_down')", show=False),
        Binding("pageup", "move('page_up')", show=False), Binding("pagedown", "move('page_down')", show=False)]

    def __init__(self, title: str, choices: list[Choice], current: str | None = None, note: str = "",
                 search: ChoiceSearch | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.shown = choices  # the list's: the search's choices while the field has a query
        self.current = current
        self.note = note
        self.search = search

    def compose(self) -> ComposeResult:
        with Vertical(id="choice"):
            yield Static(Text(sanitize(self.title_text), style="bold"), id="choice-title")
            if self.note:
                yield Static(Text(sanitize(self.note), style="dim"), id="choice-note")
            if self.search is not None:
                yield Input(placeholder="search every session's text", id="choice-search")
                said = Static("", id="choice-said")
                said.display = False  # until a query has no choices
                yield said
            yield OptionList(*[self._option(c) for c in self.choices], id="choice-list")
            yield Static(Text("enter: pick · esc: cancel", style="dim"))

    def _option(self, choice: Choice) -> Option:
        mark = "● " if choice.value == self.current else "  "
        label = Text(mark + sanitize(choice.label or choice.value), no_wrap=True, overflow="ellipsis")
        if choice.help:
            label.append("  " + sanitize(choice.help), style="dim")
        return Option(label)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [c.value for c in self.choices]
        if self.current in values:
            options.highlighted = values.index(self.current)
        if self.search is not None:
            self.query_one(Input).focus()
        else:
            options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.shown[event.option_index].value)

    async def action_move(self, action: str) -> None:
        await self.query_one(OptionList).run_action(action)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and highlighted < len(self.shown):
            self.dismiss(self.shown[highlighted].value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._find(event.value.strip())

    @work(exclusive=True, group="choice-search")  # a newer query cancels the one under way
    async def _find(self, query: str) -> None:
        found: list[Choice] | str = self.choices
        if query and self.search is not None:
            found = await self.search(query)
        said = self.query_one("#choice-said", Static)
        # One line, cut with "…" at the dialog's width: a long reason never pushes the list down.
        said.update(Text(sanitize(found), style="bold", no_wrap=True, overflow="ellipsis")
                    if isinstance(found, str) else "")
        said.display = isinstance(found, str)
        self._show([] if isinstance(found, str) else found)

    def _show(self, choices: list[Choice]) -> None:
        self.shown = choices
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([self._option(c) for c in choices])
        options.display = bool(choices)  # (no empty box under "no session says it")
        values = [c.value for c in choices]
        if choices:
            options.highlighted = values.index(self.current) if choices is self.choices and \
                self.current in values else 0

    def action_cancel(self) -> None:
        """Esc empties a search field that has text (every choice is listed again), then closes."""
        if self.search is not None and (field := self.query_one(Input)).value:
            field.value = ""
        else:
            self.dismiss(None)
