"""What real servers do that the naive contract forbids, at the level of a whole turn:
ids reused across responses, incomplete answers, bare error frames, deviations."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.mock_api import serving, settings
from helpers.streams import body, call, call_events, completed, created, ev, message, message_events

from rivulet.core import errors
from rivulet.core.turn.bus import EventBus, ItemCompleted, ItemStarted, ProtocolDeviation
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.tool_api import NoTools


def _no_sleep():
    async def sleep(seconds: float) -> None:
        return None

    return sleep


async def test_item_ids_reused_by_the_next_response_are_committed_and_shown():
    """A server that numbers items per response (msg_0 in every response): each
    response's items are new; de-duplication is only for the retry of one request."""
    first = body([created("r1"), *call_events("fc_0", "call_a", "nothing", "{}"),
                  completed([call("fc_0", "call_a", "nothing", "{}")], "r1")])
    second = body([created("r2"), *message_events("fc_0", "second answer"),
                   completed([message("fc_0", "second answer")], "r2")])
    third = body([created("r3"), *message_events("fc_0", "third answer"),
                  completed([message("fc_0", "third answer")], "r3")])
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    conv = Conversation(settings(), serving(first, second, third), bus)
    result = await conv.run_turn("one")
    assert result.last_message == "second answer"
    result = await conv.run_turn("two")
    await bus.drain()
    assert result.last_message == "third answer"
    texts = [i["content"][0]["text"] for i in conv.history.items if i.get("role") == "assistant"]
    assert texts == ["second answer", "third answer"]
    started = [e.item_id for e in seen if isinstance(e, ItemStarted)]
    assert started == ["fc_0", "fc_0", "fc_0"]
    assert sum(isinstance(e, ItemCompleted) and e.item_id == "fc_0" for e in seen) == 3


async def test_an_incomplete_response_ends_the_turn_with_its_partial_answer_and_no_retry():
    cut = body([created(), *message_events("m1", "The first half"),
                ev("response.incomplete", response={"id": "resp_1", "status": "incomplete", "output": [
                    {**message("m1", "The first half"), "status": "incomplete"}],
                    "incomplete_details": {"reason": "max_output_tokens"}})])
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(cut, requests=requests), sleep=_no_sleep())
    with pytest.raises(errors.ResponseIncomplete, match="output token limit") as info:
        await conv.run_turn("write a lot")
    assert not info.value.retryable
    assert info.value.partial == "The first half"
    assert len(requests) == 1
    assert conv.history.items[-1]["content"][0]["text"] == "The first half"


async def test_calls_of_an_incomplete_response_are_not_run():
    ran = []

    class Tools(NoTools):
        def specs(self):
            return []

        async def run(self, call_item):
            ran.append(call_item)
            return {"type": "function_call_output", "call_id": call_item["call_id"], "output": "ran"}

    cut = body([created(), *call_events("fc_1", "call_1", "shell", '{"command": "rm -rf'),
                ev("response.incomplete", response={"id": "resp_1", "output": [], "incomplete_details": {
                    "reason": "max_output_tokens"}})])
    conv = Conversation(settings(), serving(cut), tools=Tools())
    with pytest.raises(errors.ResponseIncomplete):
        await conv.run_turn("go")
    assert ran == []
    # The next request stays valid: the cut call is answered "aborted" by normalisation.
    request_input = conv.history.to_input()
    assert [i["type"] for i in request_input][-2:] == ["function_call", "function_call_output"]


async def test_a_bare_error_frame_is_a_server_error_that_is_retried():
    """llama.cpp: `data: {"error": {...}}` with no type, no response.completed after."""
    frame = b'data: {"error":{"code":500,"message":"The model produced output that does not match","type":"server_error"}}\n\n'
    failing = body([created()]) + frame
    requests: list[httpx.Request] = []
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    conv = Conversation(settings(), serving(failing, body([created(), *message_events("m1", "ok"),
                                                           completed([message("m1", "ok")])]), requests=requests),
                        bus, sleep=_no_sleep())
    result = await conv.run_turn("hi")
    await bus.drain()
    assert result.last_message == "ok" and len(requests) == 2
    retry = next(e for e in seen if type(e).__name__ == "Retrying")
    assert retry.error.kind == "server_error" and "does not match" in retry.error.message


async def test_deviations_are_published_kept_and_fatal_when_strict():
    overlapping = [created(), *message_events("m1", "text")[:3],
                   *call_events("fc_1", "call_1", "f", "{}", 1)[:1],
                   message_events("m1", "text")[-1], call_events("fc_1", "call_1", "f", "{}", 1)[-1],
                   completed([message("m1", "text"), call("fc_1", "call_1", "f", "{}")])]
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    conv = Conversation(settings(), serving(body(overlapping), body([created("r2"), completed([])])), bus)
    await conv.run_turn("go")
    await bus.drain()
    notes = [e for e in seen if isinstance(e, ProtocolDeviation)]
    assert [n.rule for n in notes] == ["overlapping_items"]
    assert json.loads(json.dumps(notes[0].to_json()))["type"] == "protocol.deviation"
    assert [d.rule for d in conv.deviations] == ["overlapping_items"]

    strict = Conversation(settings(strict_protocol=True), serving(body(overlapping)))
    with pytest.raises(errors.ProtocolError, match="strict protocol"):
        await strict.run_turn("go")
    # What was committed before the refusal stays.
    assert strict.history.items[0]["role"] == "user"


async def test_a_needed_field_of_the_wrong_type_stops_the_turn_with_one_line():
    bad_call = {**call("fc_1", "call_1", "shell", ""), "arguments": {"command": "ls"}}
    stream = body([created(), *message_events("m1", "kept"),
                   ev("response.output_item.done", output_index=1, item=bad_call)])
    conv = Conversation(settings(), serving(stream))
    with pytest.raises(errors.MalformedEventError, match="'arguments' must be a string, got an object"):
        await conv.run_turn("go")
    assert conv.history.items[-1]["id"] == "m1"


async def test_limits_on_items_and_item_size_are_clear_errors_that_keep_what_was_committed():
    many = [created(), *message_events("m0", "kept")]
    for n in range(1, 6):
        many += message_events(f"m{n}", "x", n)
    conv = Conversation(settings(max_items_per_response=3), serving(body(many)))
    with pytest.raises(errors.LimitExceeded, match="max_items"):
        await conv.run_turn("go")
    assert [i.get("id") for i in conv.history.items][1:] == ["m0", "m1", "m2"]

    huge = [created(), *message_events("m0", "y" * 100, chunks=10)]
    conv = Conversation(settings(max_item_chars=50), serving(body(huge)))
    with pytest.raises(errors.LimitExceeded, match="max_item_chars"):
        await conv.run_turn("go")
