"""Cost and speed per turn (issue 27): usage -> dollars with cached and reasoning tokens
from a given table, the shipped table by model prefix, and a turn's `cost` with its time
to first token and tokens per second (llama.cpp's own `timings` where it sends them)."""

from __future__ import annotations

import pytest
from helpers.mock_api import serving, settings
from helpers.paths import REAL
from helpers.streams import simple_text_response

from rivulet.core.turn.bus import EventBus, TurnCompleted
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.prices import PRICES_DATE, price_for
from rivulet.core.turn.turn_cost import add_cost, describe, split_usage, turn_cost

USAGE = {"input_tokens": 10_000, "input_tokens_details": {"cached_tokens": 8_000},
         "output_tokens": 2_000, "output_tokens_details": {"reasoning_tokens": 1_500}, "total_tokens": 12_000}
TABLE = {"my-model": {"input": 2.0, "cached": 0.5, "output": 8.0}}


def test_usage_becomes_dollars_with_cached_input_billed_lower_and_reasoning_as_output():
    cost = turn_cost(USAGE, "my-model-2025", prices=TABLE)
    assert split_usage(USAGE) == {"input": 10_000, "cached": 8_000, "output": 2_000, "reasoning": 1_500}
    # 2,000 uncached at $2, 8,000 cached at $0.50, 2,000 output (1,500 of it reasoning) at $8, per million
    assert cost["dollars"] == pytest.approx((2_000 * 2.0 + 8_000 * 0.5 + 2_000 * 8.0) / 1e6)
    assert cost["price_source"] == "prices setting"
    assert describe(cost).startswith("10,000 in (8,000 cached) · 2,000 out (1,500 reasoning) · $0.0240")


def test_the_shipped_table_finds_a_model_by_its_longest_prefix_and_says_its_date():
    mini = price_for("gpt-5-mini-2025-08-07")
    assert mini is not None and (mini.input, mini.output) == (0.25, 2.00)
    assert price_for("gpt-5-2025-08-07").input == 1.25  # not gpt-5-mini's
    assert PRICES_DATE in mini.source
    assert price_for("qwen-coder-1.5b.gguf") is None
    assert turn_cost(USAGE, "qwen-coder-1.5b.gguf")["dollars"] is None  # no price: no dollars, tokens still


def test_the_setting_overrides_the_shipped_price():
    assert price_for("gpt-5", {"gpt-5": {"input": 9.0, "output": 9.0}}).input == 9.0


def test_the_session_sum_adds_tokens_and_dollars_of_each_turn():
    one = turn_cost(USAGE, "my-model", prices=TABLE)
    total = add_cost(add_cost(None, one), one)
    assert total["turns"] == 2 and total["cached"] == 16_000 and total["dollars"] == pytest.approx(2 * one["dollars"])


async def test_a_turn_completed_carries_its_cost_and_speed():
    bus = EventBus()
    done: list[TurnCompleted] = []
    bus.subscribe(done.append, TurnCompleted)
    usage = {"input_tokens": 1_000, "output_tokens": 50, "total_tokens": 1_050}
    conv = Conversation(settings(model="gpt-5"), serving(simple_text_response("hello there", usage=usage)), bus=bus)
    await conv.run_turn("hi")
    await bus.drain()
    cost = done[0].cost
    assert cost is not None and cost["input"] == 1_000 and cost["output"] == 50
    assert cost["dollars"] == pytest.approx((1_000 * 1.25 + 50 * 10.0) / 1e6)
    assert cost["ttft_s"] is not None and cost["ttft_s"] >= 0
    assert cost["tokens_per_s"] is not None and cost["tokens_per_s"] > 0
    assert done[0].to_json()["cost"] == cost  # what exec --json prints in turn.completed
    assert conv.session_cost["dollars"] == pytest.approx(cost["dollars"])


async def test_llama_cpp_timings_give_the_speed_it_measured():
    capture = (REAL / "llamacpp" / "llamacpp_text.sse").read_bytes()
    bus = EventBus()
    done: list[TurnCompleted] = []
    bus.subscribe(done.append, TurnCompleted)
    conv = Conversation(settings(model="qwen"), serving(capture), bus=bus)
    await conv.run_turn("hi")
    await bus.drain()
    assert done[0].cost["tokens_per_s"] == 0.4  # predicted_per_second beside the capture's response.completed
    assert done[0].cost["prompt_tokens_per_s"] == 18.8


def test_a_model_without_a_price_shows_no_dollars_in_the_turn_or_the_run():
    """Issue 38.6: no price, no dollar figure (not `$0.0000`), in the turn's line and the run's sum."""
    unpriced = turn_cost(USAGE, "qwen-coder-1.5b.gguf")
    total = add_cost(add_cost(None, unpriced), unpriced)
    assert total["dollars"] is None and total["turns"] == 2
    assert "$" not in describe(unpriced) and "$" not in describe(total)


def test_a_run_of_priced_and_unpriced_turns_says_what_its_dollars_leave_out():
    priced = turn_cost(USAGE, "my-model", prices=TABLE)
    total = add_cost(add_cost(None, turn_cost(USAGE, "local-model")), priced)
    assert total["dollars"] == pytest.approx(priced["dollars"]) and total["unpriced"] == 1
    assert "$0.0240 (1 turn without a price)" in describe(total)
