"""The garbage collector, paced for a chat: it should not scan the start-up heap again and
again while the user waits for a key or a frame.

CPython's full collection walks every tracked object, and one runs whenever the objects
that survived young collections reach a quarter of the old ones. A chat is a few hundred
thousand objects once Textual, Rich and the HTTP stack are imported, almost all alive
until exit: profiles of a flood of items showed full passes inside single frames (the
time landing in `Strip.__init__`, the allocation that triggered them).

* `gc.freeze()` once the app is up, when the first turn starts: what start-up left (the
  modules, classes and tables of Textual, Rich, httpx, pydantic; the resumed session)
  moves to the permanent generation, which collections skip. It is O(1) (no collection
  first: the little garbage start-up left is kept, once). Later objects are never
  frozen: widgets removed later (old entries, live panes) are cycles the collector must
  still find.
* A larger young generation: a frame's temporary objects (strips, segments, events) die
  before a collection sees them instead of being promoted, so the old generation, and
  the full passes it sets off, grow more slowly.

Process-wide, so only the real chat turns it on (`app/launch.py`), not apps in tests."""

from __future__ import annotations

import gc
from typing import Any

YOUNG = 7000  # CPython's default is 700 allocations between young collections


class GcPacing:
    def __init__(self) -> None:
        self.frozen = False

    def turn_started(self, _: Any = None) -> None:
        """The first turn: start-up is over, what it left stays for good."""
        if self.frozen:
            return
        self.frozen = True
        young, middle, old = gc.get_threshold()
        gc.set_threshold(max(YOUNG, young), middle, old)
        gc.freeze()
