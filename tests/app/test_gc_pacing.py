"""The collector's pacing (app/gc_pacing.py): at the first request sent, start-up's garbage
is collected and what is alive frozen, once; what is made after it is still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from rivulet.app.gc_pacing import GcPacing
from rivulet.core.turn.bus import ResponseStarted


@pytest.fixture
def restored_gc():
    yield
    gc.unfreeze()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_the_first_request_collects_then_freezes_and_later_cycles_are_still_collected(restored_gc):
    alive = Node()
    garbage = weakref.ref(Node())  # start-up's garbage: freed, not frozen
    pacing = GcPacing()
    pacing.start_up_over()
    assert garbage() is None
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert all(o is not alive for o in gc.get_objects())  # what lives left the collector's lists
    pacing.start_up_over()  # later turns change nothing
    assert gc.get_freeze_count() == frozen
    later = Node()
    ref = weakref.ref(later)
    del later
    gc.collect()
    assert ref() is None


def test_it_settles_when_the_first_request_is_sent_not_at_the_turns_end(restored_gc):
    routes: dict[type, object] = {}

    class Bridge:
        def route_at_once(self, handlers):
            routes.update(handlers)

    GcPacing().install(Bridge())
    # A flood of items in the first response must not walk start-up's heap in every full
    # collection: the freeze comes before the response, not after the turn.
    assert list(routes) == [ResponseStarted]
    routes[ResponseStarted](ResponseStarted(1, 1, 1))
    assert gc.get_freeze_count() > 0


def resumed_ready(turns: int):
    from rivulet.app.boot import Ready
    from rivulet.core import items as it
    from rivulet.core.store.session import Session, SessionMeta
    from rivulet.core.turn.history import History

    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 1}")
    return Ready(None, None, None, session=Session(SessionMeta("s", 0, "/", "m", "u"), history))  # type: ignore[arg-type]


def test_a_resumed_session_is_frozen_once_the_boot_has_read_it(restored_gc):
    """Its items would otherwise be walked by every full collection until the first request
    (issue 36.9: three passes of 0.15 s at 20,000 turns)."""
    ready = resumed_ready(50)
    item = ready.session.history.entries[0].item
    assert any(o is item for o in gc.get_objects())
    assert GcPacing().after_boot(lambda: ready)() is ready
    assert all(o is not item for o in gc.get_objects())  # out of the collector's walks


def test_a_boot_with_no_session_freezes_nothing(restored_gc):
    from rivulet.app.boot import Ready

    before = gc.get_freeze_count()
    GcPacing().after_boot(lambda: Ready(None, None, None))()  # type: ignore[arg-type]
    assert gc.get_freeze_count() == before
