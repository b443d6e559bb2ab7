"""The transcript: history entries and, below them, the live panes of the running
response. It follows the bottom (Textual's scroll anchor: the layout itself keeps
it at the end, however fast content grows and whatever the window size) until the
user scrolls up; reaching the bottom again re-engages it. While the user is away
from the bottom, new output shows a hint instead of moving the view."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widget import Widget

from .sizing import LaidOutOnce

LINE_STEP = 3  # lines per ctrl+up / ctrl+down


class Transcript(LaidOutOnce, VerticalScroll):
    can_focus = False  # typing stays in the composer; keys scroll this from there

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hint: Widget | None = None  # "new output below", shown while away from the bottom

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        # Textual keeps the released state privately (textual 8); it is what we mean by away.
        return not self._anchor_released

    def follow(self) -> None:
        """Back to the bottom, following again (sending a message does this)."""
        self.scroll_end(animate=False, immediate=True)
        self._show_hint(False)

    def scroll_by_key(self, where: str) -> None:
        page = max(1, self.scrollable_content_region.height - 2)
        targets = {"page_up": self.scroll_y - page, "page_down": self.scroll_y + page, "top": 0,
                   "line_up": self.scroll_y - LINE_STEP, "line_down": self.scroll_y + LINE_STEP}
        if where == "bottom":
            self.follow()
            return
        y = max(0, min(self.max_scroll_y, targets[where]))
        if y >= self.max_scroll_y:
            self.follow()
        else:
            self.scroll_to(y=y, animate=False, immediate=True)  # releases the anchor: away

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.following:
            self._show_hint(False)

    def virtual_size_changed(self, old: Size, new: Size) -> None:
        if not self.following and new.height > old.height:
            self._show_hint(True)

    def _show_hint(self, show: bool) -> None:
        if self.hint is not None and self.hint.display != show:
            self.hint.display = show
