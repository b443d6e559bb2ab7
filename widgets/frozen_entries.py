"""Old history entries as data, drawn as lines only where they can be seen.

Every widget in the transcript is visited by each layout pass, and Textual has no
partial layout: a widget per entry makes each commit cost more than the one before.
Entries older than the newest `KEEP_ENTRIES` are therefore held by one `FrozenEntries`
widget as plain data (key, item, output). It draws a *window* of them as pre-rendered
lines (Rich, styled from the theme, looking like their widgets did):

* while the transcript follows the bottom, the window is only the newest entries that
  can be seen above the widgets (often none), so adding an entry is an append to a list;
* once the user scrolls up, the window is pinned and grows as the view nears either of
  its ends (`load_above`, `load_below`), and find or Home move it (`show`).

Entries outside the window cost no lines and no layout. Their lines are rendered once
per (width, theme) and dropped when the window leaves them, so memory stays bounded.
Clicking an entry opens its raw item, the mouse selects and copies its text, and find
looks through every entry, not only the window.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from textual import events
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from rivulet.core import items as it

from .frozen import render_lines
from .kind_views import entry_renderable
from .line_copy import copied_text, pointer_bounds, selected
from .messages import OpenRawItem
from .note_line import NOTE_TYPE

KEEP_ENTRIES = 4  # history entries kept as widgets (a turn's worth); older ones are frozen
FLOOD_ENTRIES = 8  # entries added between two layouts that make a flood (no margin drawn)
WINDOW_MAX_LINES = 4000  # lines a pinned window keeps; beyond, the far end is dropped

Item = dict[str, Any]
Record = tuple[str, Item, "Item | None"]


def laid_out_lines(widgets: list[Widget]) -> int:
    """The lines these shown widgets take, margins included, as the last layout left them
    (a widget not laid out yet counts 0)."""
    return sum(w.outer_size.height + w.styles.margin.top for w in widgets if w.display)


class FrozenEntries(Widget):
    """Old history entries: every one as data, a window of them as lines."""

    DEFAULT_CSS = """
    FrozenEntries { height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: list[Record] = []  # (key, item, output), oldest first
        self._calls: dict[str, int] = {}  # call id -> index, so a late output finds its call
        self._indexed = 0  # entries looked at for `_calls` (when a late output first asks)
        self.lo = self.hi = 0  # the window: entries [lo, hi) are drawn
        self.pinned = False  # the user scrolled up: the window stays where it is
        self.moved = False  # `show` put the window elsewhere: a pending scroll shift is void
        self.rendered = 0  # entries rendered into lines so far (tests: lazy is lazy)
        self._key: tuple[int, str] = (0, "")  # (width, theme) of the cached lines
        self._cache: dict[int, list[Strip]] = {}  # index -> its lines, only inside the window
        self._starts: list[int] = []  # first line of each window entry
        self._total = 0  # lines in the window
        self._fresh = 0  # entries added since the tail window was last laid out
        self._flooded = False  # so many came that only what can be seen is drawn

    # ---- data ----------------------------------------------------------------------

    def add(self, key: str, item: Item, output: Item | None = None) -> None:
        """An O(1) append: lines are made only if it is ever in view."""
        self.add_all([(key, item, output)])

    def add_all(self, entries: list[tuple[str, Item, Item | None]]) -> None:
        """Appends, then one refresh (a resume adds thousands: a refresh each was ~2 s of
        a 5,000-turn resume under load, each one asking the compositor for the region).
        Nothing looks at each entry here: a resume's first frame costs a screen, not its length."""
        self._fresh += len(entries)
        self.entries.extend(entries)
        if entries and not self.pinned:
            self.refresh(layout=True)  # the tail window may now hold them

    def has_call(self, call_id: str | None) -> bool:
        if call_id is None:
            return False
        for index in range(self._indexed, len(self.entries)):  # the entries added since last asked
            item = self.entries[index][1]
            if it.is_call(item) and (call := it.call_id(item)):
                self._calls[call] = index
        self._indexed = len(self.entries)
        return call_id in self._calls

    def set_output(self, call_id: str, output: Item) -> None:
        index = self._calls[call_id]
        key, item, _ = self.entries[index]
        self.entries[index] = (key, item, output)
        if self._cache.pop(index, None) is not None:
            self._measure()
            self.refresh(layout=True)

    def clear(self) -> None:
        self.entries, self._calls, self._cache, self._indexed = [], {}, {}, 0
        self.lo = self.hi = 0
        self._measure()
        self.refresh(layout=True)

    # ---- the window ----------------------------------------------------------------

    def _lines(self, index: int) -> list[Strip]:
        lines = self._cache.get(index)
        if lines is None:
            _, item, output = self.entries[index]
            width = self._key[0] or 1
            # A blank line first: the entries' top margin (a note has none).
            margin = [] if item.get("type") == NOTE_TYPE else [Strip.blank(width)]
            lines = [*margin, *render_lines(entry_renderable(item, output, self.app.current_theme),
                                            width, self.app.current_theme)]
            self._cache[index] = lines
            self.rendered += 1
        return lines

    def _measure(self) -> None:
        """The window's line starts, from its entries' lines (rendered as needed)."""
        self._cache = {i: lines for i, lines in self._cache.items() if self.lo <= i < self.hi}
        self._starts, total = [], 0
        for index in range(self.lo, self.hi):
            self._starts.append(total)
            total += len(self._lines(index))
        self._total = total

    def _view_height(self) -> int:
        return max(1, self.app.size.height)

    def _tail(self) -> None:
        """Following: the window is the newest entries that fill what can be seen above
        the widgets below, and half a screen more to scroll into (a scroll up then loads
        more, `Transcript._fill`). Each entry of a flood that joins the window is rendered
        on the frame it comes, so this margin is paid per frame: a whole screen of it was
        a third of the frozen block's cost while 2,000 items streamed."""
        below = self._height_below()
        view = self._view_height()
        # In a flood the whole window is new at each layout: the margin would be rendered
        # only to be pushed out by the next batch. Then only what can be seen is drawn.
        if self._fresh:  # (asked again in the same layout, the answer stays)
            self._flooded, self._fresh = self._fresh >= FLOOD_ENTRIES, 0
        margin = 0 if self._flooded else view // 2
        want = max(0, view + margin - max(0, below))
        self.hi = lo = len(self.entries)
        lines = 0
        while lo > 0 and lines < want:
            lo -= 1
            lines += len(self._lines(lo))
        self.lo = lo

    def _height_below(self) -> int:
        """The lines of the transcript's widgets below this block, as the last layout left
        them (a widget not laid out yet counts 0: the window is then a little longer). Not
        `virtual_region`: asked during a layout pass, it had the compositor arrange the
        whole screen again (4 of a 5,000-turn resume's 19 s, in a profile)."""
        parent = self.parent
        if not isinstance(parent, Widget):
            return 0
        siblings = list(parent.children)
        return laid_out_lines(siblings[siblings.index(self) + 1:] if self in siblings else [])

    def _ensure(self, width: int) -> None:
        key = (width, self.app.current_theme.name)
        if key != self._key:  # a new width or theme: every line again
            self._key, self._cache = key, {}
        if not self.pinned:
            self._tail()
        self._measure()

    @property
    def drawn_lines(self) -> int:
        return self._total

    def pin(self) -> None:
        """The user scrolled up: the window stops following the newest entries."""
        self.pinned = True

    def unpin(self) -> None:
        """Back at the bottom: the window is the tail again."""
        if self.pinned:
            self.pinned = False
            self.refresh(layout=True)

    def load_above(self, lines: int) -> int:
        """Older entries join the window until `lines` more are drawn; the lines added."""
        added = 0
        while self.lo > 0 and added < lines:
            self.lo -= 1
            added += len(self._lines(self.lo))
        if added:
            self._trim(keep_top=True)
            self._measure()
            self.refresh(layout=True)
        return added

    def load_below(self, lines: int) -> int:
        """Newer entries join the window; returns how many lines left it at the top."""
        added = 0
        while self.hi < len(self.entries) and added < lines:
            added += len(self._lines(self.hi))
            self.hi += 1
        removed = self._trim(keep_top=False) if added else 0
        if added:
            self._measure()
            self.refresh(layout=True)
        return removed

    def _trim(self, keep_top: bool) -> int:
        """Keep the window under WINDOW_MAX_LINES, dropping the end away from the view;
        the lines dropped at the top (the caller scrolls up by as many)."""
        total = sum(len(self._lines(i)) for i in range(self.lo, self.hi))
        removed = 0
        while total > WINDOW_MAX_LINES and self.hi - self.lo > 1:
            if keep_top:
                self.hi -= 1
                total -= len(self._lines(self.hi))
            else:
                removed += len(self._lines(self.lo))
                total -= len(self._lines(self.lo))
                self.lo += 1
        return removed

    def show(self, index: int) -> int:
        """Pin the window around entry `index` (find, Home); its first line."""
        if not (self.lo <= index < self.hi):
            self.pinned = self.moved = True
            self.lo, self.hi = index, index + 1
            self.load_below(2 * self._view_height())
            self.load_above(self._view_height())
        self._measure()
        self.refresh(layout=True)
        return self._starts[index - self.lo]

    # ---- drawing -------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(max(1, width))
        return self._total

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        if self._key[0] != width:
            self._ensure(max(1, width))
        style = self.rich_style  # the widget's colours under the entries' own styles
        index = self.entry_at(y)
        if index is None:
            return Strip.blank(width, style)
        offset = y - self._starts[index - self.lo]
        lines = self._lines(index)
        if offset >= len(lines):
            return Strip.blank(width, style)
        line = lines[offset]
        selection = self.text_selection and pointer_bounds(self, self.text_selection)
        if selection is not None and (span := selection.get_span(y)) is not None:
            line = selected(line, span, self.screen.get_component_rich_style("screen--selection"), self.app.console)
        return line.crop_extend(0, width, style).apply_style(style).apply_offsets(0, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text of the window (the mouse can only reach what is drawn), as
        text: no bars, margins or rules, wrapped lines joined (line_copy.py)."""
        selection = pointer_bounds(self, selection)
        texts = [copied_text(self._lines(i), selection, self._starts[i - self.lo]) for i in range(self.lo, self.hi)]
        return "\n".join(text.strip("\n") for text in texts if text.strip()), "\n"  # each entry has its own margin

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def entry_at(self, y: int) -> int | None:
        """The index of the entry drawn on line `y`."""
        if not self._starts or not 0 <= y < self._total:
            return None
        return self.lo + bisect_right(self._starts, y) - 1

    def line_of(self, index: int) -> int:
        """The first line of entry `index` (the window moves there if it is outside)."""
        return self.show(index)

    def key_at(self, y: int) -> str | None:
        index = self.entry_at(y)
        return None if index is None else self.entries[index][0]

    def on_click(self, event: events.Click) -> None:
        key = self.key_at(event.y)
        if key is not None:
            self.post_message(OpenRawItem(key))
