"""The collector's pacing (app/gc_pacing.py): start-up's heap is frozen once, at the
first turn, and what is made after it is still collected."""

from __future__ import annotations

import gc
import weakref

import pytest

from rivulet.app.gc_pacing import YOUNG, GcPacing


@pytest.fixture
def restored_gc():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_the_first_turn_freezes_start_up_and_later_cycles_are_still_collected(restored_gc):
    before = Node()
    pacing = GcPacing()
    pacing.turn_started()
    frozen = gc.get_freeze_count()
    assert frozen > 0 and gc.get_threshold()[0] >= YOUNG
    assert all(o is not before for o in gc.get_objects())  # start-up's objects left the collector's lists
    pacing.turn_started()  # later turns change nothing
    assert gc.get_freeze_count() == frozen
    later = Node()
    ref = weakref.ref(later)
    del later
    gc.collect()
    assert ref() is None
