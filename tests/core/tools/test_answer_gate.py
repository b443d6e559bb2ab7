"""Issue 35, item 5: keys typed ahead answered the approval question. The gate's rule, on
its own clock: a burst that began before the question opened answers nothing however long
it goes on; a key after a pause does; "always" takes a second step."""

from __future__ import annotations

from rivulet.core.tools.answer_gate import QUIET, AnswerGate
from rivulet.core.tools.approval import Decision

A, Y, N = Decision.ALWAYS, Decision.YES, Decision.NO


def _burst(gate: AnswerGate, start: float, keys: list[Decision | None], gap: float = 0.1) -> list[Decision | None]:
    return [gate.key(start + i * gap, answer) for i, answer in enumerate(keys)]


def test_a_burst_through_the_opening_answers_nothing_however_long():
    gate = AnswerGate(opened_at=10.0)
    # Typing began before the question opened (keys stamped earlier) and goes on for 3 s.
    keys = [None, A, None, Y, A, A, None, N] * 4
    assert _burst(gate, 9.7, keys) == [None] * len(keys)
    assert gate.selected is None and gate.left(9.7 + 0.1 * len(keys)) > 0


def test_a_key_after_a_pause_answers():
    gate = AnswerGate(opened_at=10.0)
    _burst(gate, 9.9, [None, Y, None])  # the last key at 10.1
    last = 10.1 + QUIET - 0.01
    assert gate.key(last, Y) is None  # not quite a pause: and it waits again
    assert gate.key(last + QUIET + 0.01, Y) is Y


def test_the_first_key_after_the_opening_must_wait_too():
    gate = AnswerGate(opened_at=10.0)
    assert gate.key(10.2, N) is None
    assert AnswerGate(opened_at=10.0).key(10.01 + QUIET, N) is N


def test_always_needs_a_second_pick_after_a_pause():
    gate = AnswerGate(opened_at=0.0)
    assert gate.key(1.0, A) is None and gate.selected is A  # selected, not given
    assert gate.key(1.1, A) is None and gate.selected is A  # the same key in a burst: still only selected
    assert gate.key(2.0, A) is A


def test_any_other_key_drops_the_selected_always():
    gate = AnswerGate(opened_at=0.0)
    gate.key(1.0, A)
    assert gate.key(1.1, None) is None and gate.selected is None  # "a" then the rest of a word
    assert gate.key(3.0, A) is None and gate.selected is A  # starts over
    assert gate.key(4.0, Y) is Y  # another answer is given at once


def test_always_for_the_tool_takes_a_second_step_too():
    gate = AnswerGate(opened_at=0.0)
    assert gate.key(1.0, Decision.ALWAYS_TOOL) is None
    assert gate.key(1.7, A) is None and gate.selected is A  # a different "always" is a new selection
    assert gate.key(2.4, A) is A


def test_a_click_counts_only_after_the_keyboard_paused_and_does_not_rearm():
    gate = AnswerGate(opened_at=0.0)
    gate.key(1.0, None)
    assert gate.click(1.2, Y) is None
    assert gate.left(1.2) > 0 and gate.click(1.01 + QUIET, Y) is Y
    assert gate.click(2.0, A) is None and gate.click(2.01, A) is A  # two clicks confirm "always"
