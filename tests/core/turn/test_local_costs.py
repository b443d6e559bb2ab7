"""Costs with a local server (issue 42.3): a local preset or a bare local URL has no
OpenAI price, whatever its model is called; a failed or interrupted turn's tokens are
counted in the run's (/cost), and a failed turn's `error` event carries them."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.mock_api import serving, settings
from helpers.streams import body, call, call_events, completed, created, simple_text_response

from rivulet.core.errors import RivuletError
from rivulet.core.turn.bus import ErrorOccurred, EventBus, TurnCompleted
from rivulet.core.turn.conversation import Conversation

USAGE = {"input_tokens": 1_000, "output_tokens": 50, "total_tokens": 1_050}
# llama-server's bare error frame, as recorded (fixtures/real/llamacpp/llamacpp_error_frame_only.sse)
ERROR_FRAME = (b'data: {"error":{"code":400,"message":"the prompt is too long","type":"invalid_request_error"}}\n\n')


def a_call() -> bytes:
    return body([created(), *call_events("fc_1", "call_1", "current_time", "{}"),
                 completed([call("fc_1", "call_1", "current_time", "{}")], usage=USAGE)])


@pytest.mark.parametrize("where", [
    {"provider": "llamacpp", "base_url": "http://127.0.0.1:8080/v1"},
    {"base_url": "http://127.0.0.1:8080/v1"},  # a bare local --base-url
], ids=["preset", "bare-url"])
@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-5.1-codex", "gpt-oss-20b"])
async def test_a_local_server_never_shows_an_openai_price(where, model):
    bus = EventBus()
    done: list[TurnCompleted] = []
    bus.subscribe(done.append, TurnCompleted)
    conv = Conversation(settings(model=model, **where), serving(simple_text_response("hi", usage=USAGE)), bus)
    await conv.run_turn("one")
    await bus.drain()
    assert done[0].cost is not None and done[0].cost["dollars"] is None and done[0].cost["input"] == 1_000
    assert conv.session_cost is not None and conv.session_cost["dollars"] is None


async def test_the_same_model_at_openai_is_priced_and_a_local_prices_setting_wins():
    conv = Conversation(settings(model="gpt-4o-mini"), serving(simple_text_response("hi", usage=USAGE)))
    await conv.run_turn("one")
    assert conv.session_cost is not None and conv.session_cost["dollars"] > 0
    mine = settings(model="gpt-4o-mini", provider="llamacpp", base_url="http://127.0.0.1:8080/v1",
                    prices={"gpt-4o-mini": {"input": 1.0, "output": 1.0}})
    conv = Conversation(mine, serving(simple_text_response("hi", usage=USAGE)))
    await conv.run_turn("one")
    assert conv.session_cost is not None and conv.session_cost["dollars"] == pytest.approx(1_050 / 1e6)


async def test_a_failed_turns_tokens_are_counted_and_its_error_carries_them():
    bus = EventBus()
    errors: list[ErrorOccurred] = []
    bus.subscribe(errors.append, ErrorOccurred)
    s = settings(model="m", max_retries=0)
    conv = Conversation(s, serving(a_call(), ERROR_FRAME), bus)
    with pytest.raises(RivuletError):
        await conv.run_turn("what time is it?")
    await bus.drain()
    assert conv.session_cost is not None
    assert (conv.session_cost["input"], conv.session_cost["output"], conv.session_cost["turns"]) == (1_000, 50, 1)
    assert errors[0].cost is not None and errors[0].cost["input"] == 1_000
    assert errors[0].to_json()["usage"]["input_tokens"] == 1_000
    json.dumps(errors[0].to_json(), default=str)  # (as exec --json writes it)


async def test_an_interrupted_turns_tokens_are_counted():
    conv = Conversation(settings(model="m"), serving(a_call(), simple_text_response("never")))
    # The second request waits for ever (a slow model): the user interrupts it.
    gate = asyncio.Event()
    real_sample = conv._sample

    async def sample(turn_id, n):
        if n == 1:
            gate.set()
            await asyncio.Event().wait()
        return await real_sample(turn_id, n)

    conv._sample = sample  # type: ignore[method-assign]
    task = asyncio.create_task(conv.run_turn("what time is it?"))
    await gate.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert conv.session_cost is not None and conv.session_cost["input"] == 1_000
