"""/cost shows what subagents took of a turn's (and the run's) tokens and dollars on a
line apart (issue 41): the totals include them, TurnCompleted.cost["subagents"] says
how much of it was theirs."""

from __future__ import annotations

from types import SimpleNamespace

from rivulet.app.commands.responses_api import cost_lines

SUBAGENTS = {"input_tokens": 1_200, "output_tokens": 340, "dollars": 0.0123, "count": 2}


def _lines(last: dict, total: dict) -> list[str]:
    return cost_lines(SimpleNamespace(conversation=SimpleNamespace(last_cost=last, session_cost=total)))


def test_subagents_tokens_and_dollars_show_apart_under_the_turn_and_the_run():
    last = {"input": 2_000, "output": 500, "dollars": 0.02, "subagents": SUBAGENTS}
    total = {"input": 5_000, "output": 900, "dollars": 0.05, "turns": 2,
             "subagents": {**SUBAGENTS, "count": 3, "dollars": 0.02}}
    lines = _lines(last, total)
    assert lines[0].startswith("last turn      2,000 in · 500 out")
    assert lines[1] == "  of it        2 subagents · 1,200 in · 340 out · $0.0123"
    assert lines[2].startswith("this run       5,000 in")
    assert lines[3] == "  of it        3 subagents · 1,200 in · 340 out · $0.0200"


def test_an_unpriced_subagent_says_so_and_a_turn_without_subagents_has_no_line():
    lines = _lines({"input": 10, "output": 5, "dollars": None,
                    "subagents": {"input_tokens": 7, "output_tokens": 3, "dollars": None, "count": 1}},
                   {"input": 10, "output": 5, "dollars": None, "turns": 1})
    assert lines[1] == "  of it        1 subagent · 7 in · 3 out · no price"
    assert not any("subagent" in line for line in lines[2:])
    plain = _lines({"input": 10, "output": 5, "dollars": None, "subagents": {"count": 0}},
                   {"input": 10, "output": 5, "turns": 1})
    assert not any("subagent" in line for line in plain)


def test_the_runs_sum_keeps_the_subagents_part_apart():
    from rivulet.core.turn.turn_cost import add_cost

    first = {"input": 100, "output": 10, "dollars": 0.01, "subagents": SUBAGENTS}
    total = add_cost(add_cost(add_cost(None, first), {"input": 5, "output": 1, "dollars": 0.001}), first)
    assert total["subagents"] == {"input_tokens": 2_400, "cached_tokens": 0, "output_tokens": 680,
                                  "reasoning_tokens": 0, "dollars": 0.0246, "count": 4}
    assert _lines(first, total)[3] == "  of it        4 subagents · 2,400 in · 680 out · $0.0246"
    unpriced = add_cost(total, {"input": 1, "output": 1, "dollars": None,
                                "subagents": {"input_tokens": 1, "output_tokens": 1, "dollars": None, "count": 1}})
    assert unpriced["subagents"]["dollars"] is None and unpriced["subagents"]["count"] == 5
