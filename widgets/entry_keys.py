"""Transcript entries you can reach from the keyboard (issue 25): shift+Tab from the
composer focuses the newest entry; Up/Down (or k/j) move between entries, Enter or space
expands or collapses a Thought, `c` copies the entry's text, Esc goes back to the
composer, and any other character is typed into the composer (typing never gets lost
on an entry). A click still opens the raw item and does not take the focus.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Collapsible, TextArea


class FocusableEntry(Widget):
    can_focus = True
    FOCUS_ON_CLICK = False  # a click opens the raw item; the keys stay where they were
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "step_entry(-1)", "Previous entry", id="entry.previous", show=False),
        Binding("down,j", "step_entry(1)", "Next entry", id="entry.next", show=False),
        Binding("enter,space", "toggle_entry", "Expand", id="entry.toggle", show=False),
        Binding("c", "copy_entry", "Copy entry", id="entry.copy", show=False),
    ]

    def _siblings(self) -> list[FocusableEntry]:
        parent = self.parent
        return [w for w in parent.children if isinstance(w, FocusableEntry)] if parent is not None else [self]

    def action_step_entry(self, step: int) -> None:
        entries = self._siblings()
        at = entries.index(self) + step
        if 0 <= at < len(entries):
            entries[at].focus()
            entries[at].scroll_visible(animate=False)
        elif step > 0:
            self.app.query_one("#composer").focus()  # past the newest: back to typing

    def action_toggle_entry(self) -> None:
        for part in self.query(Collapsible):
            part.collapsed = not part.collapsed
            return
        self.notify("Nothing to expand here", timeout=2)

    def copy_text(self) -> str:
        """What `c` copies (a history entry says, by its item's kind)."""
        return ""

    def action_copy_entry(self) -> None:
        self.app.copy_to_clipboard(self.copy_text())
        self.notify("Copied the entry", timeout=2)

    def on_key(self, event: events.Key) -> None:
        if not event.is_printable or event.character is None or event.character in "kjc ":
            return
        composer = self.app.query_one("#composer", TextArea)
        composer.focus()
        event.stop()
        event.prevent_default()
        composer.insert(event.character)
