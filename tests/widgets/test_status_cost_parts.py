"""After a turn the status line says what it cost in parts, each with its own priority:
the token counts and the time to first token give way first, then the sandbox, and the
dollars and speed last, so a hosted-tools turn (its usage is long: cached input and
reasoning tokens) still shows them at 120 and at 80 columns. Before, the whole cost was
one part and went at 120 columns."""

from __future__ import annotations

import pytest

from rivulet.core.turn.turn_cost import TurnClock, cost_pieces, describe, turn_cost
from rivulet.widgets.status import StatusLine, fit_status

# The usage of a real web-search turn (fixtures/real/pydantic-ai/test_openai_responses_web_search_citations_stream.1.sse).
USAGE = {"input_tokens": 8253, "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 4224},
         "output_tokens": 84, "output_tokens_details": {"reasoning_tokens": 37}, "total_tokens": 8337}


def _line() -> StatusLine:
    clock = TurnClock(started=0.0)
    clock.response(2.3, 4.34, None)
    line = StatusLine("gpt-5.4-mini", effort="medium", window=272_000)
    line.sandbox, line.note = "sandbox workspace-write", "Done in 12s"
    line.cost = cost_pieces(turn_cost(USAGE, "gpt-5.4-mini", clock))
    line.usage, line.total_tokens = USAGE, USAGE["total_tokens"]  # as StatusBoard.add_usage leaves them
    return line


@pytest.mark.parametrize("columns", [120, 80])
def test_a_hosted_tools_turn_keeps_its_dollars_and_speed(columns):
    left, right, cut = fit_status(_line()._parts(), columns - 2)
    assert left == "Done in 12s · $0.0064 · 41.2 tok/s" and cut is None
    assert right.startswith("sandbox workspace-write • ") == (columns == 120)
    assert right.endswith("gpt-5.4-mini medium • 96% context left")


def test_with_room_the_whole_cost_is_said_as_before():
    line = _line()
    left, right, _ = fit_status(line._parts(), 200)
    cost = turn_cost(USAGE, "gpt-5.4-mini", TurnClock(started=0.0))
    assert describe(cost) == " · ".join(text for _, text in cost_pieces(cost))
    assert left == "Done in 12s · 8,253 in (4,224 cached) · 84 out (37 reasoning) · $0.0064 · " \
                   "2.3s to first token · 41.2 tok/s"
    assert "8.3k tokens used" in right


def test_server_text_in_a_piece_is_sanitised():
    line = _line()
    line.cost = [("dollars", "$1\x1b[2J")]
    left, _, _ = fit_status(line._parts(), 200)
    assert "\x1b" not in left
