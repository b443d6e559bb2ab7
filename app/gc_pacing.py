"""The garbage collector, paced for a chat: it should not walk the start-up heap again
and again while the user waits for a key or a frame.

CPython's full collection walks every tracked object, and one runs whenever the objects
that survived young collections reach a quarter of the old ones. Almost everything the
chat's start-up makes (Textual, Rich, httpx, pydantic: modules, classes, tables, the app's
widgets) lives until exit, yet each full pass walked it again: profiles of a flood of
items showed full passes inside single frames (the time landing in `Strip.__init__`, the
allocation that set them off).

So once the first turn has ended (its "Done" is painted; the user reads the answer), one
full collection frees what start-up left as garbage, then `gc.freeze()` moves what is
left to the permanent generation, which collections skip from then on. Freezing without
that collection kept start-up's garbage for good (+33 MB at turn 20 of a soak). Later
objects are never frozen: widgets removed later (old entries, live panes) are cycles the
collector must still find.

Process-wide, so only the real chat turns it on (`app/launch.py`), not apps in tests."""

from __future__ import annotations

import gc
from typing import Any


class GcPacing:
    def __init__(self) -> None:
        self.frozen = False

    def turn_ended(self, _: Any = None) -> None:
        """The first turn's end: start-up is over, what it left alive stays for good."""
        if self.frozen:
            return
        self.frozen = True
        gc.collect()
        gc.freeze()
