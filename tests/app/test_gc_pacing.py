"""The collector's pacing (app/gc_pacing.py): at the first turn's end, start-up's garbage
is collected and what is alive frozen, once; what is made after it is still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from rivulet.app.gc_pacing import GcPacing


@pytest.fixture
def restored_gc():
    yield
    gc.unfreeze()


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_the_first_turn_end_collects_then_freezes_and_later_cycles_are_still_collected(restored_gc):
    alive = Node()
    garbage = weakref.ref(Node())  # start-up's garbage: freed, not frozen
    pacing = GcPacing()
    pacing.turn_ended()
    assert garbage() is None
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert all(o is not alive for o in gc.get_objects())  # what lives left the collector's lists
    pacing.turn_ended()  # later turns change nothing
    assert gc.get_freeze_count() == frozen
    later = Node()
    ref = weakref.ref(later)
    del later
    gc.collect()
    assert ref() is None
