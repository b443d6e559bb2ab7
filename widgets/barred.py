"""A frozen (old) entry's bar: what a live entry's border-left draws, as Rich draws it."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style

from .line_copy import CHROME_META


class Barred:
    """A renderable behind a bar on every row it takes, a wrapped row too, as an entry
    widget's border-left draws it (a bar put before each line of the text left the rows
    Rich wrapped without one). The bar is not copied with a selection."""

    def __init__(self, body: RenderableType, colour: str) -> None:
        self.body, self.colour = body, colour

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        bar = Segment("▌ ", Style(color=self.colour) + CHROME_META)
        inner = options.update_width(max(1, options.max_width - 2))
        for line in console.render_lines(self.body, inner, pad=False) or [[]]:
            yield bar
            yield from line
            yield Segment.line()
