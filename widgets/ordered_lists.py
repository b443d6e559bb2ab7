"""Ordered lists numbered the same live and committed (issue 25: "1" became "1." on commit).

The live tail and the frozen lines draw Markdown with Rich, whose numbers have no dot
("1 Read"); the committed entry drew it with Textual's Markdown widget ("1. Read").
Rich's list item is given Textual's numbers here: the dot, and a column as wide as the
last number's, right-aligned behind one space, so a committed answer keeps its layout.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem
from rich.segment import Segment


class NumberedItem(ListItem):
    def render_number(self, console: Console, options: ConsoleOptions, number: int, last_number: int) -> RenderResult:
        # Rich passes one past the last number (start + items); Textual sizes for the last.
        width = len(f"{max(number, last_number - 1)}. ") + 1
        lines = console.render_lines(self.elements, options.update(width=options.max_width - width), style=self.style)
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}. ".rjust(width), style)
        padding = Segment(" " * width, style)
        for n, line in enumerate(lines):
            yield numeral if n == 0 else padding
            yield from line
            yield Segment.line()
