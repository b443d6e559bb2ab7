"""A small modal list to pick one value from (a model, an effort, a theme, a policy...).

Enter picks, Esc cancels (the screen is dismissed with None). The current value is
marked and highlighted first. Labels may be server text (model names): shown plain,
sanitised, never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from rivulet.core.sanitize import sanitize


@dataclass(frozen=True)
class Choice:
    value: str
    label: str = ""  # default: the value
    help: str = ""


class ChoiceScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="choice.cancel")]

    def __init__(self, title: str, choices: list[Choice], current: str | None = None, note: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.current = current
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="choice"):
            yield Static(Text(sanitize(self.title_text), style="bold"), id="choice-title")
            if self.note:
                yield Static(Text(sanitize(self.note), style="dim"), id="choice-note")
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
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index].value)

    def action_cancel(self) -> None:
        self.dismiss(None)
