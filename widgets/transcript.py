"""The transcript: history entries and, below them, the live panes of the running
response. It follows the bottom (Textual's scroll anchor: the layout itself keeps
it at the end, however fast content grows and whatever the window size) until the
user scrolls up; reaching the bottom again re-engages it. While the user is away
from the bottom, new output shows a hint instead of moving the view."""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget

from .compat.textual import anchor_released
from .frozen_entries import FrozenEntries, laid_out_lines
from .sizing import LaidOutOnce

LINE_STEP = 3  # lines per ctrl+up / ctrl+down


class Transcript(LaidOutOnce, VerticalScroll):
    can_focus = False  # typing stays in the composer; keys scroll this from there

    def __init__(self, *args: Widget, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hint: Widget | None = None  # "new output below", shown while away from the bottom
        self._shift = 0  # lines added above the view, to scroll down by once laid out
        self._filling = False
        # An old entry that find or Home put at the top of the view: (frozen block, index),
        # or an entry widget (a session resumed at a search's hit). Kept there through every
        # layout until the user scrolls: a scroll made before the moved window (or the new
        # entries) was laid out can be clamped to the old, shorter content, or turned back
        # into following the bottom by Textual's anchor check.
        self._goal: tuple[FrozenEntries, int, str] | Widget | None = None
        self._seeking = False
        self._frozen: FrozenEntries | None = None  # the frozen block, once found

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        # Textual keeps the released state privately (textual 8); it is what we mean by away.
        return not anchor_released(self)

    @property
    def frozen(self) -> FrozenEntries | None:
        # Asked for every committed item: a DOM query each time was 7 % of a flood's CPU.
        block = self._frozen
        if block is None or block.parent is not self:
            found = self.query_children(FrozenEntries)
            block = self._frozen = found.first() if found else None
        return block

    def follow(self) -> None:
        """Back to the bottom, following again (sending a message does this)."""
        self._goal = None
        if (frozen := self.frozen) is not None:
            frozen.unpin()
        self.scroll_end(animate=False, immediate=True)
        self._show_hint(False)

    def show_old_entry(self, frozen: FrozenEntries, index: int) -> None:
        """Old entry `index` of the frozen block at the top of the view, and kept there as
        the screen settles, until the user scrolls (find, Home)."""
        if self.max_scroll_y > 0:  # (all of it fitting, it stays as it is: see _seek)
            self.release_anchor()  # first: the scroll's own watcher must not see a following view
        self._goal = (frozen, index, frozen.entries[index][0])
        frozen.show(index)
        self._seek()

    def show_entry(self, entry: Widget) -> None:
        """Entry widget `entry` at the top of the view, kept there as the screen settles, as
        an old entry is (show_old_entry), until the user scrolls. While all of it fits, the
        view stays as it is (following): the entry is on screen already."""
        self._goal = entry
        self._seek()

    def _seek(self) -> None:
        """Scroll to the goal, as far as the content laid out so far allows."""
        if self._goal is None:
            return
        if self.max_scroll_y <= 0:
            # All of it fits: the goal is on screen already. A following view that fits sits
            # at a negative scroll_y (its content at the bottom); released there, it would show
            # nothing. The goal is kept for when the content outgrows the view.
            return
        if isinstance(self._goal, Widget):
            entry = self._goal
            if entry.parent is not self:
                self._goal = None  # the transcript was cleared or rebuilt meanwhile
                return
            self.release_anchor()
            self._seeking = True
            try:
                self.scroll_to_widget(entry, animate=False, top=True, immediate=True)
            finally:
                self._seeking = False
            if self.following:
                self.release_anchor()
            return
        frozen, index, key = self._goal
        if frozen.parent is not self or index >= len(frozen.entries) or frozen.entries[index][0] != key:
            self._goal = None  # the transcript was cleared or rebuilt meanwhile
            return
        self.release_anchor()
        frozen.pin()
        self._seeking = True
        try:
            self.scroll_to(y=self._top_of(frozen) + frozen.line_of(index), animate=False, immediate=True)
        finally:
            self._seeking = False
        if self.following:  # clamped to the end of what is laid out so far: not a return
            self.release_anchor()  # to following, the goal is further down

    def _top_of(self, block: Widget) -> int:
        """The first line of a child, from the heights the last layout left (see
        FrozenEntries._height_below for why not `virtual_region`)."""
        children = list(self.children)
        return laid_out_lines(children[:children.index(block)]) + block.styles.margin.top

    def scroll_by_key(self, where: str) -> None:
        self._goal = None
        page = max(1, self.scrollable_content_region.height - 2)
        targets = {"page_up": self.scroll_y - page, "page_down": self.scroll_y + page, "top": 0,
                   "line_up": self.scroll_y - LINE_STEP, "line_down": self.scroll_y + LINE_STEP}
        if where == "bottom":
            self.follow()
            return
        if where == "top" and (frozen := self.frozen) is not None and frozen.entries:
            self.show_old_entry(frozen, 0)  # the very first entry, not the top of what is drawn
            return
        target = round(targets[where])  # scroll_y is a float; the frozen entries count whole lines
        frozen = self.frozen
        if target < 0 and frozen is not None and frozen.lo > 0:
            # Above what is drawn: keys came faster than the lines loaded above were laid
            # out (a loaded machine). The overshoot joins the pending shift, applied with
            # those lines, instead of stopping at the top and losing the key.
            self.release_anchor()
            frozen.pin()
            added = frozen.load_above(2 * page - target)
            if added:
                self._shift += added + target
                self.scroll_to(y=0, animate=False, immediate=True)
                return
        y = max(0, min(self.max_scroll_y, target))
        if y >= self.max_scroll_y:
            self.follow()
        else:
            self.scroll_to(y=y, animate=False, immediate=True)  # releases the anchor: away

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._seeking:
            return  # on the way to the goal: neither following nor filling yet
        self._goal = None  # the user moved the view (wheel, scrollbar, keys): it is theirs
        if self.following:
            self._show_hint(False)
        self._fill()

    def _fill(self) -> None:
        """Away from the bottom, old entries are drawn as the view nears the edge of
        what is drawn of them (a screen ahead, two at a time)."""
        frozen = self.frozen
        if frozen is None or self._filling:
            return
        if self.following:
            frozen.unpin()
            return
        frozen.pin()
        view = max(1, self.scrollable_content_region.height)
        top = frozen.virtual_region.y
        if self.scroll_y - top < view and frozen.lo > 0:
            self._shift += frozen.load_above(2 * view)
        if top + frozen.drawn_lines - (self.scroll_y + view) < view and frozen.hi < len(frozen.entries):
            self._shift -= frozen.load_below(2 * view)

    def virtual_size_changed(self, old: Size, new: Size) -> None:
        frozen = self.frozen
        if frozen is not None and frozen.moved:  # the window jumped (find, ctrl+home): its
            frozen.moved, self._shift = False, 0  # caller scrolls there, not by an old shift
        if self._goal is not None:  # find or Home: the entry stays at the top, not shifted
            self._shift = 0
            self._seek()
            if not self.following and new.height > old.height:
                self._show_hint(True)
            return
        if self._shift:  # lines were added above the view: it moves down with them
            shift, self._shift = self._shift, 0
            self._filling = True
            try:
                self.set_scroll(None, max(0, self.scroll_y + shift))
            finally:
                self._filling = False
            return
        if not self.following and new.height > old.height:
            self._show_hint(True)

    def _show_hint(self, show: bool) -> None:
        if self.hint is not None and self.hint.display != show:
            self.hint.display = show
