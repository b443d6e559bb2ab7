"""After a turn the status line says what it cost in parts, each with its own priority:
the time to first token and the tokens' detail (cached, reasoning) give way first, then
the sandbox, then the token counts, and the speed and dollars last, so a hosted-tools
turn (its usage is long) shows its tokens, dollars and speed at 120 columns, its
dollars and speed at 80; and a llama-server turn (its model named by a file path) its
tokens and speed at 120 (issue 42.7: they never showed there). Before, the whole cost
was one part and went at 120 columns."""

from __future__ import annotations

import pytest

from rivulet.core.turn.turn_cost import TurnClock, cost_pieces, describe, turn_cost
from rivulet.widgets.status import StatusLine, fit_status, footer_pieces

# The usage of a real web-search turn (fixtures/real/pydantic-ai/test_openai_responses_web_search_citations_stream.1.sse).
USAGE = {"input_tokens": 8253, "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 4224},
         "output_tokens": 84, "output_tokens_details": {"reasoning_tokens": 37}, "total_tokens": 8337}


def _line() -> StatusLine:
    clock = TurnClock(started=0.0)
    clock.response(2.3, 4.34, None)
    line = StatusLine("gpt-5.4-mini", effort="medium", window=272_000)
    line.sandbox, line.note = "sandbox workspace-write", "Done in 12s"
    line.cost = footer_pieces(turn_cost(USAGE, "gpt-5.4-mini", clock))
    line.usage, line.total_tokens = USAGE, USAGE["total_tokens"]  # as StatusBoard.add_usage leaves them
    return line


@pytest.mark.parametrize("columns", [120, 80])
def test_a_hosted_tools_turn_keeps_its_dollars_and_speed(columns):
    left, right, cut = fit_status(_line()._parts(), columns - 2)
    tokens = "8,253 in · 84 out · " if columns == 120 else ""
    assert left == f"Done in 12s · {tokens}$0.0064 · 41.2 tok/s" and cut is None
    assert right == "gpt-5.4-mini medium • 96% context left"


# A llama-server turn as the field run saw it: no dollars, a warm prompt cache, the turn diff hint.
LLAMA_COST = {"input": 2273, "cached": 1024, "output": 512, "dollars": None, "ttft_s": 1.2, "tokens_per_s": 25.3}


@pytest.mark.parametrize("columns", [120, 80])
def test_a_llama_server_turn_shows_its_tokens_and_speed_at_120(columns):
    line = StatusLine("/work/peer/models/qwen-coder-1.5b.gguf", window=16384)
    line.sandbox, line.note = "sandbox workspace-write", "Done in 12s · ctrl+t: turn diff"
    line.cost = footer_pieces(LLAMA_COST)
    line.usage, line.total_tokens = {"input_tokens": 2273, "output_tokens": 512, "total_tokens": 2785}, 14825
    left, right, cut = fit_status(line._parts(), columns - 2)
    if columns == 120:
        assert left == "Done in 12s · ctrl+t: turn diff · 2,273 in · 512 out · 25.3 tok/s"
    else:
        assert left == "Done in 12s · ctrl+t: turn diff"
    assert right == "qwen-coder-1.5b.gguf • 83% context left" and cut is None


def test_with_room_the_whole_cost_is_said_as_before():
    line = _line()
    left, right, _ = fit_status(line._parts(), 200)
    cost = turn_cost(USAGE, "gpt-5.4-mini", TurnClock(started=0.0))
    assert describe(cost) == " · ".join(text for _, text in cost_pieces(cost))
    assert left == "Done in 12s · 8,253 in · 84 out (4,224 cached, 37 reasoning) · $0.0064 · " \
                   "2.3s to first token · 41.2 tok/s"
    assert "8.3k tokens used" in right


def test_server_text_in_a_piece_is_sanitised():
    line = _line()
    line.cost = [("dollars", "$1\x1b[2J")]
    left, _, _ = fit_status(line._parts(), 200)
    assert "\x1b" not in left
