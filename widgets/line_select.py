"""Selecting transcript lines from the keyboard (issue 38): the mouse's selection, driven
by keys. Up/Down (or k/j) move a one-line selection, Shift+Up/Down (or K/J) extend it, y or
Enter copies it, Esc leaves (the app's Esc and Ctrl+C come here while this has the keys:
app/tui_turns.py, app/tui_ctrl_c.py).

A line is a row of text as drawn: a row of an old entry in the frozen block
(frozen_entries.py), of an answer's pre-rendered lines (frozen.py), or of any other widget
of the transcript. The selection is the screen's own (`Screen.selections`), so each widget
highlights it and gives its text as a mouse selection does: frozen lines through
line_copy.py (no bars, margins or rules; wrapped lines joined), other widgets through
Textual's. The app copies that text (app/copying.py: sanitised, clipboard or OSC 52).

Rows of the frozen block are held as (entry, row in the entry): the block's window moves
as the view scrolls, and a row number of it would then name another line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Offset, Region
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from .compat.rich import has_meta
from .frozen import PrerenderedBlocks
from .frozen_entries import FrozenEntries
from .line_copy import DrawnRow
from .transcript import Transcript

END = 1 << 30  # a column past any row's end
HINT = "LINES  ↑↓/jk move · shift+↑↓ extend · y/enter copy · esc leave"

Row = tuple[Widget, int]  # a widget of the transcript, a row of its content
Mark = tuple[Widget, int, int]  # a row held so it survives the frozen window moving


def _leaves(widget: Widget) -> list[Widget]:
    """The transcript's widgets that draw text, top to bottom (those the mouse selects)."""
    out: list[Widget] = []
    for child in widget.children:
        if not child.display:
            continue
        if isinstance(child, (FrozenEntries, PrerenderedBlocks)) or not child.children:
            if child.content_size.height > 0:
                out.append(child)
        else:
            out.extend(_leaves(child))
    return out


def _offsets(line: Strip) -> list[tuple[int, int, int]]:
    """(x, y, length) of each segment of a widget's row, in the widget's text (Textual's
    selection offsets: a wrapped row starts part-way through a line of its text)."""
    out = []
    for segment in line:
        style = segment.style
        meta = style.meta if style is not None and has_meta(style) else {}
        if "offset" in meta and segment.text:
            x, y = meta["offset"]
            out.append((x, y, len(segment.text)))
    return out


def _rows_by_offset(widget: Widget) -> bool:
    """Widgets whose selections count rows (ours, of pre-rendered lines), not text offsets."""
    return isinstance(widget, (FrozenEntries, PrerenderedBlocks))


class LineSelect(Static):
    """The mode's key handler, shown as a one-line hint above the composer while on."""

    DEFAULT_CSS = """
    LineSelect { height: 1; padding: 0 1; background: $boost; }
    """
    can_focus = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Line up", id="lines.up", show=False),
        Binding("down,j", "move(1)", "Line down", id="lines.down", show=False),
        Binding("shift+up,K", "extend(-1)", "Extend up", id="lines.extend_up", show=False),
        Binding("shift+down,J", "extend(1)", "Extend down", id="lines.extend_down", show=False),
        Binding("y,enter", "copy", "Copy", id="lines.copy", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(Text(HINT), markup=False, **kwargs)  # type: ignore[arg-type]
        self.display = False
        self.on_copy: Callable[[str], None] | None = None  # the app's: copy this text
        self._cursor: Mark | None = None
        self._anchor: Mark | None = None

    # ---- on and off ---------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.display

    def enter(self) -> bool:
        """On, at the lowest line of text in view (False: no text to select)."""
        rows = self._rows()
        view = self._transcript().content_region
        seen = [i for i, row in enumerate(rows) if view.y <= self._screen_y(row) < view.bottom and self._text(row)]
        start = seen[-1] if seen else next((i for i in reversed(range(len(rows))) if self._text(rows[i])), None)
        if start is None:
            self.app.notify("No text in the transcript to select", timeout=3)
            return False
        self._cursor = self._anchor = self._mark(rows[start])
        self.display = True
        self.focus()
        self._show(rows)
        return True

    def leave(self) -> None:
        self._cursor = self._anchor = None
        self.display = False
        self.screen.clear_selection()

    def on_blur(self) -> None:
        if self.active:
            self.leave()

    # ---- keys ---------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        self._step(step, extend=False)

    def action_extend(self, step: int) -> None:
        self._step(step, extend=True)

    def action_copy(self) -> None:
        text = self.screen.get_selected_text() or ""
        if self.on_copy is not None and text:
            self.on_copy(text)

    def _step(self, step: int, extend: bool) -> None:
        rows = self._rows()
        at = self._find(rows, self._cursor)
        if at is None:
            return
        target = at + step
        while 0 <= target < len(rows) and not self._text(rows[target]):
            target += step  # blank rows (margins between entries) are passed over
        if not 0 <= target < len(rows):
            if step < 0 and self._more_above(rows):
                # The view goes up a little, and the transcript draws older entries (as a
                # scroll does); once they are laid out, the step is taken again.
                self._transcript().scroll_by_key("line_up")
                self.call_after_refresh(self._step, step, extend)
            return
        self._cursor = self._mark(rows[target])
        if not extend:
            self._anchor = self._cursor
        self._show(rows)

    @staticmethod
    def _more_above(rows: list[Row]) -> bool:
        """Old entries above the frozen block's window (drawn once scrolled to)."""
        top = rows[0][0] if rows else None
        return isinstance(top, FrozenEntries) and top.lo > 0

    # ---- rows ---------------------------------------------------------------------------

    def _transcript(self) -> Transcript:
        return self.screen.query_one(Transcript)

    def _rows(self) -> list[Row]:
        return [(w, y) for w in _leaves(self._transcript()) for y in range(w.content_size.height)]

    def _mark(self, row: Row) -> Mark:
        widget, y = row
        if isinstance(widget, FrozenEntries):
            index = widget.entry_at(y)
            if index is not None:
                return widget, index, y - widget.line_of(index)
        return widget, -1, y

    def _row_of(self, mark: Mark) -> Row | None:
        widget, index, y = mark
        if index < 0:
            return widget, y
        assert isinstance(widget, FrozenEntries)
        if not widget.lo <= index < widget.hi:
            return None  # its entry left the window
        return widget, widget.line_of(index) + y

    def _find(self, rows: list[Row], mark: Mark | None) -> int | None:
        row = self._row_of(mark) if mark is not None else None
        if row is None:
            return None
        try:
            return rows.index(row)
        except ValueError:
            return None

    def _span(self, rows: list[Row]) -> tuple[int, int] | None:
        at, anchor = self._find(rows, self._cursor), self._find(rows, self._anchor)
        if at is None:
            return None
        anchor = at if anchor is None else anchor
        return min(at, anchor), max(at, anchor)

    def _text(self, row: Row) -> str:
        widget, y = row
        return DrawnRow(widget.render_line(y)).text.strip()

    def _screen_y(self, row: Row) -> int:
        widget, y = row
        return widget.content_region.y + y

    # ---- the selection ------------------------------------------------------------------

    def _show(self, rows: list[Row]) -> None:
        """The screen's selection over the rows between the anchor and the cursor, and
        the cursor's row in view."""
        span = self._span(rows)
        if span is None:
            return
        first, last = span
        by_widget: dict[Widget, list[int]] = {}
        for widget, y in rows[first:last + 1]:
            by_widget.setdefault(widget, []).append(y)
        selections: dict[Widget, Selection] = {}
        for widget, ys in by_widget.items():
            ys = [y for y in ys if self._text((widget, y))]  # a widget's blank rows: no blank lines copied
            if not ys:
                continue
            selection = self._selection(widget, min(ys), max(ys))
            if selection is not None:
                selections[widget] = selection
        self.screen.selections = selections
        cursor = self._row_of(self._cursor) if self._cursor is not None else None
        if cursor is not None:
            self._bring_into_view(cursor)

    def _selection(self, widget: Widget, top: int, bottom: int) -> Selection | None:
        if _rows_by_offset(widget):
            return Selection(Offset(0, top), Offset(END, bottom))
        starts = [o for y in range(top, bottom + 1) for o in _offsets(widget.render_line(y))]
        if not starts:
            return None
        x0, y0, _ = starts[0]
        x1, y1, length = starts[-1]
        return Selection(Offset(x0, y0), Offset(x1 + length, y1))

    def _bring_into_view(self, row: Row) -> None:
        transcript = self._transcript()
        top = self._screen_y(row) - transcript.content_region.y + round(transcript.scroll_y)
        transcript.scroll_to_region(Region(0, top, 1, 1), animate=False, immediate=True)
