"""What a mouse selection of pre-rendered lines copies: the text, not the drawing (issue 25).

Old entries (`frozen_entries.py`) and a long answer's older segments (`frozen.py`) are
drawn as lines rendered by Rich, so a selection sees the screen's cells: the entry bars,
the margins, a table's rules, the "↪ " that continues a wrapped code line, and a break
wherever a paragraph was wrapped. The copy leaves those out:

* segments drawn only for looks carry `CHROME` in their style's meta (the bars) and are
  skipped; a row that starts with the code's continuation mark (`WRAP`) joins the row
  above it with nothing between;
* rows made only of box-drawing characters (a table's rules) are dropped;
* a row that the greedy word wrap must have broken (its first word would not have fitted
  at the end of the row above) joins that row with one space; code rows (`CODE`) never do;
* the margin every selected row shares is removed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.geometry import Offset
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from .compat.rich import has_meta
from .compat.textual import select_state

CHROME = "rivulet-chrome"  # meta key: drawn for looks, never copied
WRAP = "rivulet-wrap"  # meta key: the mark of a continued code row
CODE = "rivulet-code"  # meta key: a row of a code block (never joined as a paragraph)
CHROME_META = Style.from_meta({CHROME: True})
RIGHT_MARGIN = 1  # the entries' right padding: a wrapped row ends before it


def _is_rule(text: str) -> bool:
    """A table's border or header rule: box-drawing characters and spaces only."""
    stripped = text.strip()
    return bool(stripped) and all("\u2500" <= c <= "\u257f" or c == " " for c in stripped)


class DrawnRow:
    """One drawn line as the copy sees it: its text without chrome, and what it is."""

    def __init__(self, line: Strip) -> None:
        kept: list[str] = []
        self.chars: list[tuple[int, str]] = []  # (cell index in the drawn line, character)
        self.wrapped = self.code = False
        code_cells: set[int] = set()
        x = chrome = 0
        for segment in line:
            meta = segment.style.meta if segment.style is not None and has_meta(segment.style) else {}
            if meta.get(WRAP):
                self.wrapped = True
                self.chars = []  # the margin before the mark is not the code's
            elif meta.get(CHROME):
                chrome += len(segment.text)
            else:
                if meta.get(CODE):
                    self.code = True
                    code_cells.update(range(x, x + len(segment.text)))
                self.chars.extend((x + i, c) for i, c in enumerate(segment.text))
                kept.append(segment.text)
            x += len(segment.text)
        if self.code:  # after the code, the entry's margin: a wrapped row ends at its last character
            last = max((i for i, (x, _) in enumerate(self.chars) if x in code_cells), default=len(self.chars) - 1)
            self.chars = self.chars[: last + 1]
        self.text = "".join(c for _, c in self.chars)
        self.width = x - chrome  # what the text could fill (an entry's bar is not room for it)

    def between(self, start: int, end: int) -> str:
        return "".join(c for x, c in self.chars if start <= x and (end == -1 or x < end))

    @property
    def indent(self) -> int:
        return len(self.text) - len(self.text.lstrip(" "))


def _continues(above: DrawnRow, row: DrawnRow) -> bool:
    """Did the word wrap break here? (Greedy wrapping breaks only where the next word
    would not fit: if it would have, the line ended in the text itself.)"""
    if row.wrapped:
        return True
    if above.code or row.code or not above.text.strip() or not row.text.strip() or _is_rule(row.text):
        return False
    if row.indent < above.indent:
        return False
    word = row.text.split()[0]
    return len(above.text.rstrip()) + 1 + len(word) > above.width - RIGHT_MARGIN


def copied_text(lines: Sequence[Strip], selection: Selection, top: int = 0) -> str:
    """The text a selection of `lines` copies (`lines[0]` is the selection's line `top`)."""
    rows = [DrawnRow(line) for line in lines]
    picked: list[tuple[int, str]] = []  # (index, selected text)
    for y, row in enumerate(rows):
        span = selection.get_span(top + y)
        if span is not None and not _is_rule(row.text):
            picked.append((y, row.between(*span)))
    if not picked:
        return ""
    margin = min((rows[y].indent for y, text in picked
                  if text.strip() and rows[y].text.startswith(text) and not rows[y].wrapped), default=0)
    out = ""
    last = -2
    for y, text in picked:
        if rows[y].text.startswith(text) and not rows[y].wrapped:  # a whole row (or its start): its margin goes
            text = text[min(margin, len(text) - len(text.lstrip(" "))):]
        if y + 1 < len(rows) and rows[y + 1].wrapped:
            pass  # code that goes on in the next row: its spaces are the code's
        else:
            text = text.rstrip(" ")
        if y == last + 1 and y > 0 and _continues(rows[y - 1], rows[y]):
            out += text if rows[y].wrapped else " " + text.lstrip(" ")
        else:
            out += ("\n" if out or last >= 0 else "") + text
        last = y
    return re.sub(r"\n{3,}", "\n\n", out)  # the blank rows between blocks: one blank line


def selected(line: Strip, span: tuple[int, int], style: Style, console: Console) -> Strip:
    """`line` with the cells of `span` (end -1: to the end) in the selection's colours.
    Textual's selection foreground is "transparent" (the text keeps its colour), which a
    Rich style can only carry as the background colour itself: the text would vanish.
    Such a foreground is left out."""
    start, end = span
    if style.color is not None and style.color == style.bgcolor:
        style = Style(bgcolor=style.bgcolor)
    text = Text.assemble(*((segment.text, segment.style or Style()) for segment in line), end="")
    text.stylize(style, start, len(text) if end == -1 else end)
    return Strip(text.render(console), line.cell_length)


def pointer_bounds(widget: Widget, selection: Selection) -> Selection:
    """The selection of a block of lines, cut where the drag began or ended on its rows.

    Textual selects all of a widget when a drag starts (or ends) beside its text, in a
    margin; for a block of hundreds of entries that copied all the ones above the
    pointer. The drag's ends in screen space bound it instead."""
    state = select_state(widget.screen)
    if state is None or state.end is None:
        return selection
    first, last = state.ordered_offsets
    region = widget.content_region
    start, end = selection.start, selection.end
    if start is None and region.y <= first.y < region.bottom:
        start = Offset(0, first.y - region.y)
    if end is None and region.y <= last.y < region.bottom:
        end = Offset(1 << 30, last.y - region.y)
    return Selection(start, end)
