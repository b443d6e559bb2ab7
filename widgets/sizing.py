"""One layout pass per change of size.

Textual lays the whole screen out again whenever a layout pass changed a widget's
virtual size (`Widget.virtual_size` is a layout reactive). For a widget whose children
were arranged in that same pass, and for a scrolling container whose anchor was applied
in it, that second pass changes nothing: while a message streams it was every other
layout pass, each a walk of every widget on the screen, and a key waited behind them.
"""

from __future__ import annotations

from textual.geometry import Size


class LaidOutOnce:
    """Mixed in before a Textual widget class: its new virtual size is recorded without
    asking for another layout pass."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        old: Size = self.virtual_size  # type: ignore[attr-defined]
        changed: bool = super()._size_updated(size, virtual_size, container_size, layout=False)  # type: ignore[misc]
        if old != virtual_size:
            self.virtual_size_changed(old, virtual_size)
        return changed

    def virtual_size_changed(self, old: Size, new: Size) -> None:
        """What a `watch_virtual_size` would do (Textual does not call watchers here)."""
