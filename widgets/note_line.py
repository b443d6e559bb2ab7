"""A line the chat itself leaves in the transcript: a tolerated protocol deviation's note,
a hook's output, "no answer came" (app/handlers/notes.py).

Each carries an item of the transcript's own (never sent, never in history): when the
entries around it are frozen into lines (frozen_entries.py) it is frozen with them, in
its place. Left a plain widget, it stayed below the frozen block, under later turns.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize

Item = dict[str, Any]
NOTE_TYPE = "rivulet.note"  # the transcript's own item type (as the subagent pane's record)


def line_item(kind: str, text: str, style: str) -> Item:
    """A note: `kind` is its CSS class (protocol-note, hook-note, no-answer)."""
    return {"type": NOTE_TYPE, "kind": kind, "text": text, "style": style}


def protocol_note_item(rule: str, detail: str) -> Item:
    return line_item("protocol-note", f"protocol note · {rule}: {detail}  (ctrl+o lists every note)", "dim italic")


def note_text(item: Item) -> Text:
    """The note's line, sanitised, never markup: the live widget's and the frozen one's."""
    return Text(sanitize(str(item.get("text", ""))), style=str(item.get("style") or ""))


class NoteLine(Static):
    """The note as a widget while its turn's entries are widgets."""

    def __init__(self, item: Item) -> None:
        super().__init__(note_text(item), markup=False, classes=str(item.get("kind") or ""))
        self.item = item
        self.item_id = f"note-{id(item)}"
        self.output: Item | None = None  # (an entry's: a note has none)
