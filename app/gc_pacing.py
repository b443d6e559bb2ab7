"""The garbage collector, paced for a chat: it should not walk the start-up heap again
and again while the user waits for a key or a frame.

CPython's full collection walks every tracked object, and one runs whenever the objects
that survived young collections reach a quarter of the old ones. Almost everything the
chat's start-up makes (Textual, Rich, httpx, pydantic: modules, classes, tables, the app's
widgets) lives until exit, yet each full pass walked it again: profiles of a flood of
items showed full passes inside single frames (the time landing in `Strip.__init__`, the
allocation that set them off).

So when the first request of the session is on its way (start-up is over; the user has
sent a prompt), one full collection frees what start-up left as garbage, then
`gc.freeze()` moves what is left to the permanent generation, which collections skip from
then on. It costs ~60 ms once, before the first request leaves. It used to wait for the
first turn's end: a flood of items in the first response then walked the start-up heap in
every full pass (10,000 items: 4.2 -> 2.6 s of the chat's CPU). Freezing without that
collection kept start-up's garbage for good (+33 MB at turn 20 of a soak). Later
objects are never frozen: widgets removed later (old entries, live panes) are cycles the
collector must still find.

Process-wide, so only the real chat turns it on (`app/launch.py`), not apps in tests."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rivulet.core.turn.bus import ResponseStarted

if TYPE_CHECKING:
    from rivulet.app.boot import Ready
    from rivulet.app.bus_bridge import BusBridge


class GcPacing:
    def __init__(self) -> None:
        self.frozen = False

    def install(self, bridge: BusBridge) -> None:
        bridge.route_at_once({ResponseStarted: self.start_up_over})

    def after_boot(self, boot: Callable[[], Ready]) -> Callable[[], Ready]:
        """`boot`, then, if it read a session to resume, what is alive frozen at once: the
        session's items are ~10 tracked objects each (400,000 for 20,000 turns), and every
        full collection until the first request walked them all again (three passes of
        0.15 s each at 20,000 turns, on whichever thread allocated next). Not collected
        first, since a full pass is what this saves: what start-up has left as garbage by
        then is ~5,000 objects, under 1 MB."""

        def run() -> Ready:
            ready = boot()
            if ready.session is not None:
                gc.freeze()
            return ready

        return run

    def start_up_over(self, _: Any = None) -> None:
        """The first request is sent: what start-up left alive stays for good."""
        if self.frozen:
            return
        self.frozen = True
        gc.collect()
        gc.freeze()
