"""Finished Markdown segments rendered once into lines: one widget for any length.

Textual's `Markdown` makes every block a widget, and every layout pass walks every
widget, so a 1 MB message as live Markdown makes each frame slower than the last.
A segment that will not change again is rendered once (with Rich's Markdown, styled
from the app's theme) into `Strip`s kept by this widget, which then costs one widget
in a layout however many segments it holds. Lines are re-rendered only when the
width or the theme changes; rendered segments are cached by (text, width, theme), so
the history entry that replaces a live message re-uses the live pane's work.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from typing import Any

from rich.console import Console, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.theme import Theme as RichTheme
from textual.geometry import Size
from textual.strip import Strip
from textual.theme import Theme
from textual.widget import Widget

_CACHE_SEGMENTS = 1024
_cache: OrderedDict[tuple[str, int, str], list[Strip]] = OrderedDict()


def _rich_theme(theme: Theme) -> tuple[RichTheme, str]:
    """Rich Markdown styles that follow the app theme (and a Pygments theme for code)."""
    primary, accent = theme.primary, theme.accent or theme.primary
    secondary = theme.secondary or primary
    panel = theme.panel or theme.surface or theme.background or "#000000"
    styles = {
        "markdown.h1": Style(color=primary, bold=True),
        "markdown.h1.border": Style(color=primary),
        "markdown.h2": Style(color=primary, bold=True, underline=True),
        "markdown.h3": Style(color=primary, bold=True),
        "markdown.h4": Style(color=secondary, bold=True),
        "markdown.h5": Style(color=secondary, italic=True),
        "markdown.h6": Style(color=secondary, dim=True),
        "markdown.code": Style(color=accent, bgcolor=panel),
        "markdown.code_block": Style(bgcolor=panel),
        "markdown.block_quote": Style(color=secondary, italic=True),
        "markdown.item.bullet": Style(color=primary, bold=True),
        "markdown.item.number": Style(color=primary),
        "markdown.link": Style(color=secondary, underline=True),
        "markdown.link_url": Style(color=secondary, underline=True),
        "markdown.table.border": Style(color=primary),
        "markdown.table.header": Style(color=primary, bold=True),
        "markdown.hr": Style(color=primary, dim=True),
    }
    return RichTheme(styles), ("monokai" if theme.dark else "friendly")


def render_lines(renderable: RenderableType, width: int, theme: Theme) -> list[Strip]:
    """A Rich renderable as lines of `width` cells, styled from the app theme."""
    rich_theme, _ = _rich_theme(theme)
    console = Console(width=width, color_system="truecolor", force_terminal=True, theme=rich_theme,
                      legacy_windows=False, markup=False, emoji=False, highlight=False)
    lines = console.render_lines(renderable, console.options.update_width(width), pad=False, new_lines=False)
    return [Strip(line) for line in lines]


def markdown(text: str, theme: Theme) -> RichMarkdown:
    return RichMarkdown(text, code_theme=_rich_theme(theme)[1], hyperlinks=False)


def render_segment(text: str, width: int, theme: Theme) -> list[Strip]:
    key = (text, width, theme.name)
    strips = _cache.get(key)
    if strips is not None:
        _cache.move_to_end(key)
        return strips
    strips = render_lines(markdown(text, theme), width, theme)
    # Segments render as blocks with a blank line between them, as Markdown would.
    strips.append(Strip.blank(width))
    _cache[key] = strips
    if len(_cache) > _CACHE_SEGMENTS:
        _cache.popitem(last=False)
    return strips


class PrerenderedBlocks(Widget):
    """Blocks that no longer change, drawn as pre-rendered lines: one widget however
    many blocks it holds. Subclasses say how one block renders (`_block_lines`); the
    lines are redrawn only when the width or the theme changes."""

    DEFAULT_CSS = """
    PrerenderedBlocks { height: auto; }
    """

    def __init__(self, blocks: list[Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.blocks: list[Any] = list(blocks or [])
        self._width = 0
        self._theme = ""
        self._lines: list[Strip] = []
        self._starts: list[int] = []  # first line of each block

    def _block_lines(self, block: Any, width: int, theme: Theme) -> list[Strip]:
        raise NotImplementedError

    def add_block(self, block: Any) -> None:
        self.blocks.append(block)
        if self._width:
            self._render(block)
        self.refresh(layout=True)

    def _render(self, block: Any) -> None:
        self._starts.append(len(self._lines))
        self._lines.extend(self._block_lines(block, self._width, self.app.current_theme))

    def _ensure(self, width: int) -> None:
        theme = self.app.current_theme.name
        if width != self._width or theme != self._theme:
            self._width, self._theme = width, theme
            self._starts, self._lines = [], []
            for block in self.blocks:
                self._render(block)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(max(1, width))
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._ensure(max(1, width))
        style = self.rich_style  # the widget's colours under the blocks' own styles
        if 0 <= y < len(self._lines):
            return self._lines[y].crop_extend(0, width, style).apply_style(style)
        return Strip.blank(width, style)

    def block_at(self, y: int) -> int | None:
        """The index of the block shown on line `y`."""
        return max(0, bisect_right(self._starts, y) - 1) if self._starts else None


class FrozenMarkdown(PrerenderedBlocks):
    """Markdown segments that no longer change."""

    @property
    def segments(self) -> list[str]:
        return self.blocks

    @property
    def text(self) -> str:
        return "".join(self.blocks)

    def add(self, segment: str) -> None:
        self.add_block(segment)

    def _block_lines(self, block: str, width: int, theme: Theme) -> list[Strip]:
        return render_segment(block, width, theme)


class MarkdownTail(Widget):
    """The open end of a streaming Markdown message: one widget whose text is replaced
    on each frame and rendered into lines (as `FrozenMarkdown` renders finished ones).

    Its height grows in steps of `step` lines, blank until the text reaches them: a new
    line of text then usually needs a repaint of this widget only. Each change of height
    is a layout pass of the whole screen, and a scroll that redraws every line of the
    transcript (Textual has no partial layout), which is most of what a frame costs."""

    DEFAULT_CSS = """
    MarkdownTail { height: auto; }
    """

    def __init__(self, step: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = ""
        self.step = max(1, step)
        self._key: tuple[str, int, str] | None = None
        self._lines: list[Strip] = []

    @property
    def reserved(self) -> int:
        """The height: the text's lines, rounded up to a whole step."""
        return -(-len(self._lines) // self.step) * self.step

    def set_text(self, text: str) -> None:
        height = self.reserved
        self.text = text
        width = self._key[1] if self._key else 0
        if width:
            self._ensure(width)
        self.refresh(layout=not width or self.reserved != height)

    def _ensure(self, width: int) -> None:
        theme = self.app.current_theme
        key = (self.text, width, theme.name)
        if key != self._key:
            self._key = key
            self._lines = render_lines(markdown(self.text, theme), width, theme) if self.text else []

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(max(1, width))
        return self.reserved

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._ensure(max(1, width))
        style = self.rich_style
        if 0 <= y < len(self._lines):
            return self._lines[y].crop_extend(0, width, style).apply_style(style)
        return Strip.blank(width, style)
