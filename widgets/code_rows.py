"""The committed code block's rows, selectable as the code itself (issue 25).

Drawn as `code_wrap.WrappedCode` draws them (a padded block, long lines continued after a
dim "↪ "), but every cell carries its place in the code (Textual's selection offsets:
column, line of the code), so a mouse selection copies the original lines: no padding,
no continuation marks, no break where a line was wrapped. A `Static` of the same rows had
no such offsets, and Textual left the code out of every copy.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from .code_wrap import MARK, code_theme, highlighted, wrap_line

PAD = 1  # the block's padding on every side, as the live block's `Padding(..., 1)`


class WrappedCodeRow(NamedTuple):
    text: Text  # the cells drawn, a continuation's mark included
    line: int  # the code's line it shows
    column: int  # where in that line its first character is
    mark: int  # characters of mark before it (0 on a line's first row)


def code_rows(code: Text, width: int) -> list[WrappedCodeRow]:
    rows: list[WrappedCodeRow] = []
    for number, line in enumerate(code.split("\n", allow_blank=True)):
        column = 0
        for n, row in enumerate(wrap_line(line, width)):
            mark = len(MARK) if n else 0
            rows.append(WrappedCodeRow(row, number, column, mark))
            column += len(row.plain) - mark
    return rows


class CodeRows(Widget):
    DEFAULT_CSS = """
    CodeRows { width: 1fr; height: auto; }
    """

    def __init__(self, code: str, lexer: str) -> None:
        super().__init__(classes="code-rows")
        self.set_code(code, lexer)

    def set_code(self, code: str, lexer: str) -> None:
        self.code, self.lexer = code.rstrip("\n"), lexer
        self._key: tuple[int, str] | None = None
        self._rows: list[WrappedCodeRow] = []
        self._strips: dict[int, Strip] = {}  # drawn rows, while nothing is selected
        self._background = Style()
        self.refresh(layout=True)

    def _ensure(self, width: int) -> None:
        name = self.app.current_theme.name  # (its colours are under the code's: a new theme redraws)
        if self._key != (width, name):
            self._key = (width, name)
            text, self._background = highlighted(self.code, self.lexer, code_theme(self.app.current_theme.dark))
            self._rows = code_rows(text, max(1, width - 2 * PAD))
            self._strips = {}

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return len(self._rows) + 2 * PAD

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._ensure(width)
        if self.text_selection is not None:
            return self._draw(y, width)
        strip = self._strips.get(y)
        if strip is None:
            strip = self._strips[y] = self._draw(y, width)
        return strip

    def _draw(self, y: int, width: int) -> Strip:
        if not PAD <= y < len(self._rows) + PAD:  # the padding above and below the code
            row = self._rows[0] if y < PAD or not self._rows else self._rows[-1]
            at = (0, 0) if y < PAD else (row.column + len(row.text.plain) - row.mark, row.line)
            blank = Strip([Segment(" " * width, self._background + Style.from_meta({"offset": at}))], width)
            return blank.apply_style(self.rich_style)
        row = self._rows[y - PAD]
        text = row.text.copy()
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(row.line)) is not None:
            start, end = span
            end = len(text.plain) + row.column if end == -1 else end
            first, last = max(start, row.column) - row.column + row.mark, end - row.column + row.mark
            if first < last:
                text.stylize(self.screen.get_component_rich_style("screen--selection"), first, last)
        text.pad_right(max(0, width - 2 * PAD - text.cell_len))
        segments = [Segment(" " * PAD, self._background + Style.from_meta({"offset": (row.column, row.line)}))]
        x = row.column - row.mark  # the mark's cells stand for the row's first character
        for segment in text.render(self.app.console):
            meta = Style.from_meta({"offset": (max(row.column, x), row.line)})
            segments.append(Segment(segment.text, self._background + (segment.style or Style()) + meta))
            x += len(segment.text)
        segments.append(Segment(" " * PAD, self._background + Style.from_meta({"offset": (x, row.line)})))
        # The widget's colours (the fence's text colour) under the code's own, as a Static has them.
        return Strip(segments).crop_extend(0, width, self._background).apply_style(self.rich_style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.code), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._strips = {}
        self.refresh()
