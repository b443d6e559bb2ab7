"""Finished Markdown segments rendered once into lines: one widget for any length.

Textual's `Markdown` makes every block a widget, and every layout pass walks every
widget, so a 1 MB message as live Markdown makes each frame slower than the last.
A segment that will not change again is rendered once (with Rich's Markdown, styled
from the app's theme) into `Strip`s kept by this widget, which then costs one widget
in a layout however many segments it holds. Lines are re-rendered only when the
width or the theme changes. The live pane's finished segments are handed to the history
entry that replaces it (`remember_segment`, taken once by `render_segment`), so the commit
re-uses the live pane's work; other renders are kept in small caches bounded by the lines
they hold (a drawn line costs 2-4 kB: a cache of 1,024 segments grew a long chat by
100 MB and never levelled off).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rich.console import Console, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.theme import Theme as RichTheme
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.theme import Theme
from textual.widget import Widget

from .code_wrap import ContinuedMarkdown, WrappingRichMarkdown, code_theme
from .line_copy import copied_text, pointer_bounds, selected
from .open_block import Block, OpenBlock
from .segmenter import Segmenter
from .sizing import LaidOutOnce

Key = tuple[str, int, str]  # (text, width, theme name)
Render = TypeVar("Render")  # what a cache holds: a segment's lines, a tail's block


class LinesCache(OrderedDict[Key, Render], Generic[Render]):
    """Least recently used renders, bounded by the lines they hold, not by their number:
    a segment is 1 to 100 lines, a block 1 to 20."""

    def __init__(self, max_lines: int, size: Callable[[Render], int]) -> None:
        super().__init__()
        self.max_lines, self.size, self.lines = max_lines, size, 0

    def get_recent(self, key: Key) -> Render | None:
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def put(self, key: Key, value: Render) -> Render:
        old = self.pop(key, None)
        if old is not None:
            self.lines -= self.size(old)
        self[key] = value
        self.lines += self.size(value)
        while self.lines > self.max_lines and len(self) > 1:
            self.lines -= self.size(self.popitem(last=False)[1])
        return value

    def take(self, key: Key) -> Render | None:
        value = self.pop(key, None)
        if value is not None:
            self.lines -= self.size(value)
        return value


class Handoff:
    """Live tails' finished segments, kept for the entry that replaces each tail, which
    takes them (a 1 MB answer is ~25,000 lines: no cache bound fits it). Only the newest
    `keep` tails' are kept: what is never taken (the entry shows its last segments as
    Markdown widgets; a discarded pane) goes when newer tails have come."""

    def __init__(self, keep: int = 4) -> None:
        self.keep = keep
        self._owners: OrderedDict[int, dict[Key, list[Strip]]] = OrderedDict()

    def put(self, owner: int, key: Key, strips: list[Strip]) -> list[Strip]:
        if owner not in self._owners:
            self._owners[owner] = {}
            while len(self._owners) > self.keep:
                self._owners.popitem(last=False)
        self._owners[owner][key] = strips
        return strips

    def take(self, key: Key) -> list[Strip] | None:
        for segments in reversed(self._owners.values()):
            strips = segments.pop(key, None)
            if strips is not None:
                return strips
        return None

    @property
    def lines(self) -> int:
        return sum(len(strips) for segments in self._owners.values() for strips in segments.values())


# Segments rendered again (a resize back, a second widget with the same text): a few screens.
_cache: LinesCache[list[Strip]] = LinesCache(1_000, size=len)
_handoff = Handoff()
_tails = itertools.count()  # each MarkdownTail's number, its segments' owner in `_handoff`


def _theme_key(theme: Theme) -> tuple[Any, ...]:
    return (theme.name, theme.dark, theme.primary, theme.accent, theme.secondary, theme.panel, theme.surface,
            theme.background)


# Made once per theme and width, not per render: building the styles and a Console was
# ~40 % of rendering a short entry (0.55 ms), paid for every entry a flood shows.
_themes: dict[tuple[Any, ...], tuple[RichTheme, str]] = {}
_consoles: OrderedDict[tuple[int, tuple[Any, ...]], Console] = OrderedDict()
_CONSOLES_KEPT = 8  # widths x themes in use at once (a resize makes a new one)


def _rich_theme(theme: Theme) -> tuple[RichTheme, str]:
    key = _theme_key(theme)
    found = _themes.get(key)
    if found is None:
        if len(_themes) >= _CONSOLES_KEPT:
            _themes.clear()
        found = _themes[key] = _make_rich_theme(theme)
    return found


def _console(width: int, theme: Theme) -> Console:
    key = (width, _theme_key(theme))
    console = _consoles.get(key)
    if console is None:
        console = Console(width=width, color_system="truecolor", force_terminal=True, theme=_rich_theme(theme)[0],
                          legacy_windows=False, markup=False, emoji=False, highlight=False)
        _consoles[key] = console
        while len(_consoles) > _CONSOLES_KEPT:
            _consoles.popitem(last=False)
    return console


def _make_rich_theme(theme: Theme) -> tuple[RichTheme, str]:
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
    return RichTheme(styles), code_theme(theme.dark)


def render_lines(renderable: RenderableType, width: int, theme: Theme) -> list[Strip]:
    """A Rich renderable as lines of `width` cells, styled from the app theme."""
    console = _console(width, theme)
    lines = console.render_lines(renderable, console.options.update_width(width), pad=False, new_lines=False)
    return [Strip(line) for line in lines]


def markdown(text: str, theme: Theme) -> RichMarkdown:
    return WrappingRichMarkdown(text, code_theme=_rich_theme(theme)[1], hyperlinks=False)


def render_segment(text: str, width: int, theme: Theme) -> list[Strip]:
    key = (text, width, theme.name)
    strips = _handoff.take(key)  # a live pane's, for the entry that replaces it: taken once
    if strips is not None:
        return _cache.put(key, strips)
    strips = _cache.get_recent(key)
    if strips is not None:
        return strips
    strips = render_lines(markdown(text, theme), width, theme)
    # Segments render as blocks with a blank line between them, as Markdown would.
    strips.append(Strip.blank(width))
    return _cache.put(key, strips)


def remember_segment(owner: int, text: str, width: int, theme: Theme, strips: list[Strip]) -> list[Strip]:
    """Keep lines made elsewhere (live tail `owner`'s blocks) as `render_segment`'s for
    `text`, until `render_segment` takes them (the committed entry)."""
    return _handoff.put(owner, (text, width, theme.name), strips)


# Blocks of live tails: a frame renders the open block, whose text is new on every frame, so
# this holds mostly renders never asked for again; the one that is (the block that settles
# as it was last drawn) is recent.
_blocks: LinesCache[Block] = LinesCache(1_000, size=lambda block: len(block.lines))
# Rich renders these with the blank line that separates them from what came before.
_NESTED = ("bullet_list_open", "ordered_list_open", "table_open", "blockquote_open")
# Inside the open segment a huge paragraph or code block is still cut (the Segmenter's
# hard cut, as between segments), so no block costs more than this to render again.
_BLOCK_HARD_LIMIT = 6_000
# The blank lines a MarkdownTail reserves (its `step`) pay off only while lines come fast:
# a new line within FAST_TICKS frames of the one before. A slow stream (a local model's
# few tokens a second) grows by its lines alone, and a reserve is given back after
# SETTLE_TICKS frames without a new line: they were the 5-8 empty rows that sat under an
# answer while it streamed (issue 42.7).
FAST_TICKS = 3
SETTLE_TICKS = 10
_LIST_ITEM = re.compile(r" {0,3}([-*+]|\d{1,9}[.)])( |\t|$)")


def render_block(text: str, width: int, theme: Theme) -> Block:
    key = (text, width, theme.name)
    block = _blocks.get_recent(key)
    if block is not None:
        return block
    md = markdown(text, theme)
    top = [t for t in md.parsed if t.level == 0]
    block = Block(render_lines(md, width, theme), bool(top) and top[0].type in _NESTED,
                  bool(top) and top[-1].type == "hr")
    return _blocks.put(key, block)


@dataclass(frozen=True)
class TailDraw:
    """How a tail's blocks are drawn: at one width, in one theme (open_block.Draw)."""

    width: int
    theme: Theme

    @property
    def key(self) -> tuple[int, str]:
        return self.width, self.theme.name

    def block(self, text: str) -> Block:
        return render_block(text, self.width, self.theme)

    def code(self, opener: str, code: str, continued: bool) -> list[Strip]:
        md = ContinuedMarkdown(opener + code, code_theme=_rich_theme(self.theme)[1], hyperlinks=False)
        return render_lines(md, self.width, self.theme)[1:]  # (the padding row above)


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
            self._render_block(block)
        self.refresh(layout=True)

    def _render_block(self, block: Any) -> None:
        self._starts.append(len(self._lines))
        self._lines.extend(self._block_lines(block, self._width, self.app.current_theme))

    def _ensure(self, width: int) -> None:
        theme = self.app.current_theme.name
        if width != self._width or theme != self._theme:
            self._width, self._theme = width, theme
            self._starts, self._lines = [], []
            for block in self.blocks:
                self._render_block(block)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(max(1, width))
        return len(self._lines)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._ensure(max(1, width))
        style = self.rich_style  # the widget's colours under the blocks' own styles
        if 0 <= y < len(self._lines):
            line = self._lines[y]
            selection = self.text_selection and pointer_bounds(self, self.text_selection)
            if selection is not None and (span := selection.get_span(y)) is not None:
                line = selected(line, span, self.screen.get_component_rich_style("screen--selection"), self.app.console)
            return line.crop_extend(0, width, style).apply_style(style).apply_offsets(0, y)  # (offsets: selectable)
        return Strip.blank(width, style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected lines as text: no margins, rules or marks, wrapped lines joined."""
        return copied_text(self._lines, pointer_bounds(self, selection)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

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


class MarkdownTail(LaidOutOnce, Widget):
    """A streaming Markdown message in one widget: its finished segments (rendered once,
    with `render_segment`, so the committed entry re-uses their lines) and its open end,
    whose text grows on each frame.

    Its height grows in steps of `step` lines, blank until the text reaches them: a new
    line of text then usually needs a repaint of this widget only. Each change of height
    is a layout pass of the whole screen, and a scroll that redraws every line of the
    transcript (Textual has no partial layout), which is most of what a frame costs. A
    segment that is finished moves from the open end to the finished lines of the same
    widget: the height stays, so that is a repaint too.

    Inside the open segment, the text is cut into blocks where a cut does not change the
    rendering (the `Segmenter`'s soft cuts: a new paragraph, list, heading or fence after
    a blank line). Blocks before the last are rendered once; a frame renders the last
    block alone and repaints only its lines, so its cost does not grow with the segment
    (a 1,500-character segment was a 10 ms Rich render on every frame, while a key waited).
    A long line in the last block is cut too, at a row's start (widgets/open_block.py).
    The text is kept in the pieces it came in, joined when a segment is finished: a frame
    copies nothing that grows with the message."""

    DEFAULT_CSS = """
    MarkdownTail { height: auto; }
    """

    def __init__(self, step: int = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._number = next(_tails)
        self.step = max(1, step)
        self.segments: list[str] = []  # the finished ones
        self._key: tuple[int, str] | None = None  # (width, theme) the lines are rendered for
        self._frozen: list[Strip] = []  # the finished segments' lines
        self._start_over()
        self._dirty_from = 0  # the first line to repaint at the next refresh
        self._height = 0  # the reserved height the screen was last laid out with
        # Lines are coming fast (a step is reserved); frames since the last new line (`tick`).
        # Until a frame is counted (a tail nobody ticks) it reserves its step.
        self._fast = True
        self._since_line = 0

    def _start_over(self) -> None:
        self._pieces: list[str] = []  # the open segment's text, as it came
        self._cutter = Segmenter(soft_limit=1, hard_limit=_BLOCK_HARD_LIMIT)  # every soft cut
        self._blocks: list[OpenBlock] = []  # the open segment's settled blocks, then its open block
        self._settled: list[Strip] = []  # the settled blocks' lines
        self._lead: list[Strip] = []  # the blank line between them and the open block, if any
        self._open: list[Strip] = []  # the open block's lines below its last cut (`_done`: above it)
        self._rendered = 0  # settled blocks whose lines are in _settled
        self._ends_with_rule: list[bool] = []  # per block: does it end with a rule (no blank after)

    @property
    def text(self) -> str:
        """The open segment."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    @property
    def _done(self) -> list[Strip]:
        return self._blocks[-1].done if self._blocks else []

    @property
    def _parts(self) -> tuple[list[Strip], ...]:
        return self._frozen, self._settled, self._lead, self._done, self._open

    @property
    def _lines(self) -> list[Strip]:
        return [line for part in self._parts for line in part]

    @property
    def text_rows(self) -> int:
        """The text's lines, without the reserve."""
        return sum(map(len, self._parts))

    @property
    def reserved(self) -> int:
        """The height: the text's lines, rounded up to a whole step while they come fast."""
        return -(-self.text_rows // self.step) * self.step if self._fast else self.text_rows

    def tick(self) -> None:
        """A frame went by (the live pane's flush, after its text): a reserve is given back
        once no new line has come for SETTLE_TICKS frames."""
        self._since_line += 1
        if self._since_line == SETTLE_TICKS and self._fast:
            self._fast = False
            if self._key is not None and self.reserved != self._height:
                self._height = self.reserved
                self.refresh(layout=True)

    def add(self, pieces: list[str], final: bool = False) -> None:
        """The open segment grows by `pieces[0]`; each further piece starts a new segment,
        the one before it finished (a Segmenter's pieces). `final`: no more text follows for
        now (the open block is drawn up to its end, however long)."""
        height = self._height  # as laid out
        rows = self.text_rows
        self._dirty_from = min(self._dirty_from, len(self._frozen) + len(self._settled))
        self._grow(pieces[0])
        for piece in pieces[1:]:
            self._finish()
            self._grow(piece)
        if self._key is None:
            self.refresh(layout=True)
            return
        self._update(self._key[0], final)
        if self.text_rows > rows:  # a new line: fast (a step reserved) if the last one was recent
            self._fast, self._since_line = self._since_line <= FAST_TICKS, 0
        first, self._dirty_from = self._dirty_from, 1 << 62
        if self.reserved != height:
            self._height = self.reserved
            self.refresh(layout=True)
        elif first < height:
            self.refresh(Region(0, first, self.size.width, height - first))

    def set_text(self, text: str) -> None:
        """The open segment's text, now (it only grows, or starts over after `freeze`)."""
        current = self.text
        if not text.startswith(current):
            self._dirty_from = min(self._dirty_from, len(self._frozen))
            self._start_over()
            current = ""
        self.add([text[len(current):]])

    def freeze(self, segment: str) -> None:
        """The open segment is finished (its text is `segment`): its lines join the finished
        ones, and the open segment starts over. The lines are the blocks' (no render of the
        whole segment), and they go into the segment cache, so the committed entry shows
        exactly what streamed."""
        current = self.text
        if segment.startswith(current):
            self._grow(segment[len(current):])
            self._finish()
            return
        self._dirty_from = min(self._dirty_from, len(self._frozen))
        self.segments.append(segment)
        if self._key is not None:
            self._frozen.extend(self._segment_lines(segment, self._key[0], self.app.current_theme))
        self._start_over()

    def _finish(self) -> None:
        """The open segment is finished: its lines (its blocks', drawn up to its end) join the
        finished ones, kept for the committed entry, and the open segment starts over."""
        self._dirty_from = min(self._dirty_from, len(self._frozen))
        segment = self.text
        self.segments.append(segment)
        if self._key is not None:
            width, theme = self._key[0], self.app.current_theme
            self._frozen.extend(remember_segment(self._number, segment, width, theme, self._segment_end(width)))
        self._start_over()

    def _segment_end(self, width: int) -> list[Strip]:
        """The open segment's lines, drawn to its end (and the blank line after a segment)."""
        self._update(width, final=True)
        return [*self._settled, *self._lead, *self._done, *self._open, Strip.blank(width)]

    def hand_over(self) -> None:
        """Keep the open segment's lines, drawn to its end, for the committed entry (as a
        finished segment's are kept)."""
        if self._key is not None and self._pieces:
            width = self._key[0]
            remember_segment(self._number, self.text, width, self.app.current_theme, self._segment_end(width))

    def _segment_lines(self, segment: str, width: int, theme: Theme) -> list[Strip]:
        """A finished segment's lines, kept for the entry that will replace this tail."""
        return remember_segment(self._number, segment, width, theme, render_segment(segment, width, theme))

    def _grow(self, text: str) -> None:
        if not text:
            return
        self._pieces.append(text)
        pieces = self._cutter.feed(text)
        if not self._blocks:
            self._blocks.append(OpenBlock())
        self._blocks[-1].add(pieces[0])
        for piece in pieces[1:]:
            # A list item after a blank line continues a list before it (a loose list):
            # cut there, the two halves would render as two lists.
            if not (_LIST_ITEM.match(piece) and _LIST_ITEM.match(self._blocks[-1].head)):
                self._blocks.append(OpenBlock())
            self._blocks[-1].add(piece)

    def _update(self, width: int, final: bool = False) -> None:
        """Render blocks that settled since the last frame, then the open block (`final`:
        all of it, the segment is finished)."""
        draw = TailDraw(width, self.app.current_theme)
        while self._rendered < len(self._blocks) - 1:
            block = self._blocks[self._rendered]
            rows = block.render(draw, final=True)
            self._settled.extend([*self._lead_of(self._rendered, block, width), *block.done, *rows])
            block.release()
            self._rendered += 1
        last = self._blocks[-1] if self._blocks else None
        self._lead, self._open = [], []
        if last is not None and not last.blank:
            self._open = last.render(draw, self._cutter.open_fence, final)
            self._lead = self._lead_of(len(self._blocks) - 1, last, width)

    def _lead_of(self, index: int, block: OpenBlock, width: int) -> list[Strip]:
        """The blank line Rich puts between a block and the block before (none when its own
        first line is that blank, or after a rule)."""
        self._ends_with_rule[index:] = [block.ends_with_rule]
        if index == 0 or block.starts_with_blank or self._ends_with_rule[index - 1]:
            return []
        return [Strip.blank(width)]

    def _ensure(self, width: int) -> None:
        key = (width, self.app.current_theme.name)
        if key != self._key:  # a new width or theme: every line again
            self._key = key
            theme = self.app.current_theme
            self._frozen = [line for segment in self.segments for line in self._segment_lines(segment, width, theme)]
            self._settled, self._rendered = [], 0
            self._update(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(max(1, width))
        self._height = self.reserved
        return self._height

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._ensure(max(1, width))
        style = self.rich_style
        for part in self._parts:
            if 0 <= y < len(part):
                return part[y].crop_extend(0, width, style).apply_style(style)
            y -= len(part)
        return Strip.blank(width, style)
