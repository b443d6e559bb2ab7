"""The history inspector: every committed item of the session, and each one's raw JSON.

The list shows type, role, time and size for each item and narrows as you type in the
search box (matching anywhere in the item's JSON) or pick a type. Enter opens the
item's raw JSON exactly as committed, pretty-printed, scrollable and copyable.
Everything shown is sanitised: the items hold model and tool text.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Select, Static, TextArea

from rivulet.core.kinds import kind_of
from rivulet.core.sanitize import sanitize
from rivulet.core.terminal.clipboard import clean_copy, removed_note
from rivulet.core.turn.history import HistoryEntry

from .choice import Choice, ChoiceScreen
from .safe import safe_text

ALL = "all"


def raw_json(item: dict[str, Any]) -> str:
    """The item as committed, pretty; controls (C1, bidi) made visible, not sent."""
    return sanitize(json.dumps(item, indent=2, ensure_ascii=False))


def describe(item: dict[str, Any]) -> str:
    """A one-line summary of an item for the list."""
    kind = item.get("type")
    if kind == "protocol.deviation":
        text = f"{item.get('rule')}: {item.get('detail')}"
    elif kind == "server.error":
        text = f"{item.get('kind')}: {item.get('message')}"
    elif kind == "compacted":
        original = item.get("item")
        what = describe(original) if isinstance(original, dict) else ""
        text = f"compaction {item.get('compaction')} ({item.get('mode')}) replaced " \
               f"{original.get('type') if isinstance(original, dict) else '?'}: {what}"
    else:
        text = kind_of(item).brief(item)
    return sanitize(" ".join(text.split()))[:80]


def notes_for_inspector(deviations: list[Any], errors: list[Any]) -> list[HistoryEntry]:
    """Protocol notes and server errors as inspector rows (not history: never sent).
    An error keeps the whole body the server sent (an HTML page, a long JSON), which
    its one-line message only summarises."""
    notes: list[HistoryEntry] = []
    for note in deviations:
        notes.append(HistoryEntry({"type": "protocol.deviation", **note.to_json()}, key="note"))
    for error in errors:
        row = {"type": "server.error", **error.to_json()}
        if getattr(error, "body", None):
            row["body"] = error.body
        notes.append(HistoryEntry(row, key="note"))
    for n, entry in enumerate(notes, 1):
        entry.seq = -n  # negative: never the seq of a committed item
    return notes


def compaction_rows(compactions: list[Any], after: int = 0) -> list[HistoryEntry]:
    """What compaction took out of history (no longer sent), one row per replaced item,
    numbered on from `after` notes (negative seqs, as notes)."""
    rows: list[HistoryEntry] = []
    for done in compactions:
        for old in done.replaced:
            rows.append(HistoryEntry({"type": "compacted", "compaction": done.number, "mode": done.mode,
                                      "item": old.item}, key="note", time=old.time))
    for n, entry in enumerate(rows, after + 1):
        entry.seq = -n
    return rows


class RawItemScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close", id="raw.close"),
        Binding("c", "copy", "Copy JSON", id="raw.copy"),
    ]

    def __init__(self, entry: HistoryEntry) -> None:
        super().__init__()
        self.entry = entry
        self.text = raw_json(entry.item)

    def compose(self) -> ComposeResult:
        with Vertical(id="raw"):
            kind = sanitize(str(self.entry.item.get("type")))
            yield Static(Text(f"#{self.entry.seq} · {kind} · {len(self.text)} characters  "
                              "(c: copy · esc: close)", style="bold"))
            yield TextArea(self.text, read_only=True, id="raw-json", show_line_numbers=True, soft_wrap=False)

    def action_copy(self) -> None:
        text, removed = clean_copy(self.text)  # JSON escapes C0, not C1 nor bidi controls
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the item's JSON{removed_note(removed)}", markup=False)


class InspectorScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="inspector.close"),
        Binding("ctrl+f", "focus_search", "Search", id="inspector.search"),
        Binding("e", "edit_here", "Edit from here", id="inspector.edit"),
    ]

    @dataclass
    class EditRequested(Message):
        """Edit and resend the user message of this turn (sent to the app)."""

        turn_id: int

    def __init__(self, entries: list[HistoryEntry], notes: list[HistoryEntry] | None = None,
                 subagent: str | None = None) -> None:
        super().__init__()
        self.subagent = subagent  # a subagent's items (its name): read only, nothing to edit from
        self.committed = len(entries)
        self.entries = entries + (notes or [])
        # Notes too: zipped with the entries below, a shorter list left them out of the table.
        self._search = [json.dumps(e.item, ensure_ascii=False).lower() for e in self.entries]
        self.shown: list[HistoryEntry] = []

    def compose(self) -> ComposeResult:
        kinds = sorted({str(e.item.get("type")) for e in self.entries})
        with Vertical(id="inspector"):
            notes = len(self.entries) - self.committed
            extra = f" · {notes} notes, errors and compacted items" if notes else ""
            if self.subagent is not None:
                yield Static(Text.assemble((f"Subagent '{sanitize(self.subagent)}': {self.committed} committed items"
                                            "  (enter: raw JSON · esc: close)", "bold")))
            else:
                yield Static(Text(f"History: {self.committed} committed items{extra}  (enter: raw JSON · "
                                  "e on a user message: edit from there · esc: close)", style="bold"))
            with Horizontal(id="inspector-filters"):
                yield Input(placeholder="search text…", id="inspector-search")
                yield Select([(safe_text(k), k) for k in kinds], prompt="every type", id="inspector-type",
                             allow_blank=True)
            yield DataTable(id="inspector-items", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "time", "type", "role", "size", "content")
        self.refill()
        table.focus()

    def refill(self) -> None:
        query = self.query_one("#inspector-search", Input).value.strip().lower()
        kind = self.query_one("#inspector-type", Select).value
        table = self.query_one(DataTable)
        table.clear()
        self.shown = []
        for entry, text in zip(self.entries, self._search, strict=True):
            if isinstance(kind, str) and entry.item.get("type") != kind:
                continue
            if query and query not in text:
                continue
            self.shown.append(entry)
            item = entry.item
            when = time.strftime("%H:%M:%S", time.localtime(entry.time)) if entry.time else ""
            number = str(entry.seq) if entry.seq > 0 else "note"
            # Text cells: a str cell would be parsed as markup.
            table.add_row(number, when, safe_text(item.get("type")), safe_text(item.get("role") or ""),
                          str(len(text)), Text(describe(item)), key=str(entry.seq))

    def on_input_changed(self, event: Input.Changed) -> None:
        self.refill()

    def on_select_changed(self, event: Select.Changed) -> None:
        self.refill()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        seq = int(event.row_key.value or 0)
        entry = next(e for e in self.entries if e.seq == seq)
        self.app.push_screen(RawItemScreen(entry))

    def action_edit_here(self) -> None:
        """The highlighted row, if it is a message of the user's that began a turn:
        history goes back to before it and it goes to the composer."""
        table = self.query_one(DataTable)
        if self.subagent is not None or self.focused is not table or not 0 <= table.cursor_row < len(self.shown):
            return  # (a subagent's history is not the conversation's: nothing to rewind)
        key = self.shown[table.cursor_row].key or ""
        if not (key.startswith("user-") and key[5:].isdigit()):
            self.notify("Only a message you sent can be edited", severity="warning", markup=False)
            return
        turn_id = int(key[5:])
        later = len(self.entries[self.entries.index(self.shown[table.cursor_row]):self.committed])

        def answered(choice: str | None) -> None:  # the history is cut only on a clear yes
            if choice == "rewind":
                self.dismiss()
                self.app.post_message(self.EditRequested(turn_id))

        # Asked first: this cuts the history back (issue 25: `e` rewound with no question).
        self.app.push_screen(ChoiceScreen(
            "Edit from this message?", [Choice("keep", "No, keep the history"),
                                        Choice("rewind", f"Yes: rewind {later} items, the message to the composer")],
            current="keep", note="The session file keeps the old branch."), answered)

    def on_key(self, event: events.Key) -> None:
        """Typing on the table searches (no shift+Tab first): "/" or a character goes to
        the search box ("e" stays the edit key); Down or Enter there goes back to the rows."""
        search = self.query_one("#inspector-search", Input)
        if self.focused is search and event.key in ("down", "enter"):  # back to the rows found
            event.stop()
            event.prevent_default()
            self.query_one(DataTable).focus()
            return
        if self.focused is search or not event.is_printable or event.character in (None, "e"):
            return
        event.stop()
        event.prevent_default()
        search.focus()
        if event.character != "/":
            search.insert_text_at_cursor(event.character)

    def action_focus_search(self) -> None:
        self.query_one("#inspector-search", Input).focus()
