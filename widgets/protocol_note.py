"""The dim line a tolerated protocol deviation leaves in the transcript (app/handlers/notes.py).

It carries an item of the transcript's own (never sent, never in history), so that when
the entries around it are frozen into lines (frozen_entries.py) it is frozen with them,
in its place: left a widget, it stayed below the frozen block, under later turns.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from rivulet.core.sanitize import sanitize

Item = dict[str, Any]
NOTE_TYPE = "rivulet.protocol_note"  # the transcript's own item type (as the subagent pane's record)


def note_item(rule: str, detail: str) -> Item:
    return {"type": NOTE_TYPE, "rule": rule, "detail": detail}


def note_text(item: Item) -> Text:
    """The note's line, sanitised, never markup: the live widget's and the frozen one's."""
    rule, detail = sanitize(str(item.get("rule", ""))), sanitize(str(item.get("detail", "")))
    return Text(f"protocol note · {rule}: {detail}  (ctrl+o lists every note)", style="dim italic")


class ProtocolNote(Static):
    """The note as a widget while its turn's entries are widgets."""

    DEFAULT_CLASSES = "protocol-note"

    def __init__(self, item: Item) -> None:
        super().__init__(note_text(item), markup=False)
        self.item = item
        self.item_id = f"protocol-note-{item.get('rule', '')}"
        self.output: Item | None = None  # (an entry's: a note has none)
