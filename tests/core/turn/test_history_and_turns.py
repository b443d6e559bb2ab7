"""Committed history, request building, follow-ups and retries that rebuild from history."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.mock_api import serving, settings, sse_response, transport_for
from helpers.recorded import recording
from helpers.streams import (
    body,
    call,
    call_events,
    completed,
    created,
    message,
    message_events,
    reasoning,
    reasoning_events,
    simple_text_response,
)

from rivulet.core import errors
from rivulet.core.turn.bus import (
    EventBus,
    ItemCompleted,
    ItemDelta,
    ItemDiscarded,
    ItemStarted,
    Retrying,
    TurnCompleted,
)
from rivulet.core.turn.conversation import Conversation, RetryPolicy
from rivulet.core.turn.history import History, normalize


def _no_sleep():
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    return slept, sleep


def _valid(request_input: list[dict]) -> None:
    """The invariants every request must satisfy."""
    calls = [i["call_id"] for i in request_input if i.get("type") == "function_call"]
    outputs = [i["call_id"] for i in request_input if i.get("type") == "function_call_output"]
    assert all(calls) and all(outputs)
    assert sorted(calls) == sorted(outputs), (calls, outputs)


# ---- normalisation ----------------------------------------------------------------------


def test_a_call_without_output_gets_an_aborted_one_and_orphans_are_dropped():
    items = [
        {"type": "message", "role": "user", "content": []},
        call("fc_1", "call_1", "f", "{}"),
        call("fc_2", "call_2", "g", "{}"),
        {"type": "function_call_output", "call_id": "call_2", "output": "ok"},
        {"type": "function_call_output", "call_id": "call_ghost", "output": "orphan"},
        {"type": "function_call_output", "call_id": "call_2", "output": "duplicate"},
        {"type": "function_call", "call_id": "", "name": "h", "arguments": "{}"},
    ]
    out = normalize(items)
    _valid(out)
    assert [(i["type"], i.get("call_id"), i.get("output")) for i in out[1:]] == [
        ("function_call", "call_1", None), ("function_call", "call_2", None),
        ("function_call_output", "call_2", "ok"), ("function_call_output", "call_1", "aborted")]


def test_hosted_calls_and_their_outputs_are_left_alone():
    hosted = {"id": "sh_1", "type": "shell_call", "call_id": "c1", "environment": {"type": "container_reference"}}
    hosted_out = {"id": "sho_1", "type": "shell_call_output", "call_id": "c1", "output": []}
    other = {"id": "sh_2", "type": "shell_call", "call_id": "c2", "environment": {"type": "container_reference"}}
    assert normalize([hosted, hosted_out, other]) == [hosted, hosted_out, other]


def test_input_drops_ids_when_not_stored_and_keeps_them_when_stored():
    h = History()
    h.append(reasoning("rs_1", "s", encrypted="gAAA-secret-blob"))
    h.append(message("msg_1", "hi"))
    unstored = h.to_input(store=False)
    assert all("id" not in i for i in unstored)
    assert unstored[0]["encrypted_content"] == "gAAA-secret-blob"
    assert [i["id"] for i in h.to_input(store=True)] == ["rs_1", "msg_1"]
    assert h.items[0]["id"] == "rs_1"  # history itself keeps the item as sent


# ---- turns --------------------------------------------------------------------------------


async def test_encrypted_reasoning_round_trips_into_the_next_request():
    first = body([created("r1"), *reasoning_events("rs_1", "thought", 0, encrypted="ENC-1"),
                  *message_events("m1", "one", 1), completed([reasoning("rs_1", "thought", "ENC-1"),
                                                              message("m1", "one")], "r1")])
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(first, simple_text_response("two", "r2", "m2"), requests=requests))
    await conv.run_turn("hello")
    await conv.run_turn("again")
    sent = [json.loads(r.content) for r in requests]
    assert sent[0]["store"] is False and sent[0]["include"] == ["reasoning.encrypted_content"]
    assert sent[0]["reasoning"] == {"summary": "auto"}
    second_input = sent[1]["input"]
    assert [i["type"] for i in second_input] == ["message", "reasoning", "message", "message"]
    assert second_input[1]["encrypted_content"] == "ENC-1"
    assert second_input[3]["content"][0]["text"] == "again"


async def test_several_items_give_several_completions_and_one_turn_completion():
    payloads = [created(), *reasoning_events("rs_1", "r", 0), *message_events("m1", "text", 1),
                completed([reasoning("rs_1", "r"), message("m1", "text")])]
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    conv = Conversation(settings(), serving(body(payloads)), bus)
    result = await conv.run_turn("go")
    await bus.drain()
    assert [e.item_id for e in seen if isinstance(e, ItemStarted)] == ["rs_1", "m1"]
    assert [e.item_id for e in seen if isinstance(e, ItemCompleted)] == ["user-1", "rs_1", "m1"]
    assert sum(isinstance(e, TurnCompleted) for e in seen) == 1
    assert result.last_message == "text" and result.requests == 1


async def test_end_turn_false_sends_a_second_request_in_the_same_turn():
    first = body([created("r1"), *message_events("m1", "Part one."), completed([message("m1", "Part one.")], "r1",
                                                                               end_turn=False)])
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(first, simple_text_response("Part two.", "r2", "m2"), requests=requests))
    result = await conv.run_turn("long answer please")
    assert len(requests) == 2 and result.requests == 2
    assert result.last_message == "Part two."
    second = json.loads(requests[1].content)["input"]
    assert second[-1]["content"][0]["text"] == "Part one."
    assert result.usage["total_tokens"] == 16  # both responses' usage added up


async def test_a_function_call_is_answered_and_followed_up_with_a_valid_request():
    first = body([created("r1"), *call_events("fc_1", "call_1", "get_weather", '{"city":"Paris"}'),
                  completed([call("fc_1", "call_1", "get_weather", '{"city":"Paris"}')], "r1")])
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(first, simple_text_response("No tool, sorry.", "r2", "m2"),
                                            requests=requests))
    result = await conv.run_turn("weather?")
    assert result.last_message == "No tool, sorry."
    second = json.loads(requests[1].content)["input"]
    _valid(second)
    assert "not available" in second[-1]["output"]


async def test_follow_up_cap_stops_the_turn_with_a_clear_error():
    looping = body([created(), *message_events("m", "more"), completed([message("m", "more")], end_turn=False)])
    conv = Conversation(settings(max_follow_ups=2), serving(looping))
    with pytest.raises(errors.RivuletError, match="max_follow_ups = 2"):
        await conv.run_turn("go")
    assert conv.requests == 3


async def test_a_cut_stream_is_retried_from_committed_history_without_duplicates():
    full = [created(), *reasoning_events("rs_1", "plan", 0), *message_events("m1", "The whole answer", 1),
            completed([reasoning("rs_1", "plan"), message("m1", "The whole answer")])]
    cut_at = len(reasoning_events("rs_1", "plan", 0)) + 3  # reasoning done, message half streamed
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    slept, sleep = _no_sleep()
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(body(full[:cut_at]), body(full), requests=requests), bus, sleep=sleep)
    result = await conv.run_turn("question")
    await bus.drain()
    assert result.last_message == "The whole answer"
    assert len(slept) == 1 and any(isinstance(e, Retrying) for e in seen)
    assert any(isinstance(e, ItemDiscarded) and e.item_id == "m1" for e in seen)
    # The retry's input is the committed history: the reasoning done before the cut, no partial text.
    retry_input = json.loads(requests[1].content)["input"]
    assert [i["type"] for i in retry_input] == ["message", "reasoning"]
    # The replayed reasoning is not committed twice: history equals the uncut run's.
    assert [i.get("id") for i in conv.history.items] == [None, "rs_1", "m1"]
    assert [e.item_id for e in seen if isinstance(e, ItemCompleted)] == ["user-1", "rs_1", "m1"]


async def test_a_retry_does_not_show_the_deltas_of_an_item_committed_before_the_cut_again():
    """The retry replays the reasoning the cut attempt already committed: its deltas were
    shown once, and a live pane must not be fed them a second time (bus_sink's replay guard)."""
    full = [created(), *reasoning_events("rs_1", "plan it", 0), *message_events("m1", "The whole answer", 1),
            completed([reasoning("rs_1", "plan it"), message("m1", "The whole answer")])]
    cut_at = len(reasoning_events("rs_1", "plan it", 0)) + 3
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    _, sleep = _no_sleep()
    conv = Conversation(settings(), serving(body(full[:cut_at]), body(full)), bus, sleep=sleep)
    await conv.run_turn("question")
    await bus.drain()
    shown = "".join(e.delta for e in seen if isinstance(e, ItemDelta) and e.item_id == "rs_1")
    assert shown == "plan it"  # once, from the first attempt
    assert [e.item_id for e in seen if isinstance(e, ItemStarted)].count("rs_1") == 1
    # The message cut half way is streamed again in full by the retry: its deltas are new.
    assert "".join(e.delta for e in seen if isinstance(e, ItemDelta) and e.item_id == "m1").endswith("The whole answer")


async def test_fatal_errors_are_not_retried_and_history_stays_consistent():
    t = transport_for(lambda r: httpx.Response(400, json={"error": {"message": "context too long",
                                                                    "code": "context_length_exceeded"}}))
    slept, sleep = _no_sleep()
    conv = Conversation(settings(), t, sleep=sleep)
    with pytest.raises(errors.ContextLengthExceeded):
        await conv.run_turn("x")
    assert slept == [] and conv.requests == 1
    assert [i["role"] for i in conv.history.items] == ["user"]


async def test_rate_limit_delay_from_the_server_is_honoured():
    answers = [httpx.Response(429, json={"error": {"message": "Please try again in 1.25s.",
                                                   "code": "rate_limit_exceeded"}}),
               sse_response([simple_text_response("ok")])]
    t = transport_for(lambda r: answers.pop(0))
    slept, sleep = _no_sleep()
    result = await Conversation(settings(), t, sleep=sleep).run_turn("x")
    assert result.last_message == "ok" and slept == [1.25]


async def test_retries_give_up_after_the_maximum_with_backoff():
    t = transport_for(lambda r: httpx.Response(503, text="unavailable"))
    slept, sleep = _no_sleep()
    conv = Conversation(settings(), t, retry=RetryPolicy(max_retries=3, base_delay=1.0), sleep=sleep)
    with pytest.raises(errors.ServerError):
        await conv.run_turn("x")
    assert len(slept) == 3 and slept[0] < slept[1] < slept[2]
    assert 0.8 <= slept[0] <= 1.2 and 3.2 <= slept[2] <= 4.8


async def test_capture_with_parallel_calls_then_output_turns():
    """A real multi-step run (4 streams): each step's calls are answered before the next."""
    recs = [recording(f"openai-reasoning-encrypted-content.1.jsonl#{n}") for n in (1, 2, 3, 4)]
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(*[r.body for r in recs], requests=requests))
    result = await conv.run_turn("go")
    assert result.requests == 4 and len(requests) == 4
    for r in requests:
        _valid(json.loads(r.content)["input"])
    assert result.last_message


@pytest.mark.parametrize("cut_at", range(0, 20))
async def test_a_cut_at_every_event_index_retries_to_the_uncut_history(cut_at):
    full = [created(), *reasoning_events("rs_1", "plan", 0), *message_events("m1", "Answer text", 1),
            *call_events("fc_1", "call_1", "f", '{"x": 1}', 2),
            completed([reasoning("rs_1", "plan"), message("m1", "Answer text"), call("fc_1", "call_1", "f", '{"x": 1}')])]
    assert len(full) == 20
    after = simple_text_response("Final.", "r2", "m2")

    uncut = Conversation(settings(), serving(body(full), after))
    await uncut.run_turn("q")
    slept, sleep = _no_sleep()
    requests: list[httpx.Request] = []
    cut = Conversation(settings(), serving(body(full[:cut_at]), body(full), after, requests=requests), sleep=sleep)
    await cut.run_turn("q")
    assert cut.history.items == uncut.history.items
    assert len(slept) == 1
    for r in requests:
        _valid(json.loads(r.content)["input"])


async def _interrupt_after(payloads: list[str]):
    """Run a turn whose stream stops after `payloads` and never ends; interrupt it there."""
    import asyncio

    from rivulet.core.turn.bus import TurnInterrupted

    reached = asyncio.Event()

    async def chunks():
        yield body(payloads)
        reached.set()
        await asyncio.Event().wait()

    t = transport_for(lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks()))
    bus = EventBus()
    seen = []
    bus.subscribe(seen.append)
    conv = Conversation(settings(), t, bus)
    task = asyncio.create_task(conv.run_turn("my prompt"))
    await reached.wait()
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await bus.drain()
    return conv, [e for e in seen if isinstance(e, TurnInterrupted)]


async def test_an_interrupt_before_anything_was_committed_undoes_the_turn():
    """Turn undo is the conversation's decision, shared by the chat and exec."""
    conv, interrupts = await _interrupt_after([created(), *message_events("m1", "half")[:3]])
    assert len(conv.history) == 0
    assert [(i.turn_id, i.taken_back) for i in interrupts] == [(1, "my prompt")]


async def test_an_interrupt_after_a_commit_keeps_it_and_tells_the_model():
    conv, interrupts = await _interrupt_after([created(), *call_events("fc_1", "call_1", "f", "{}"),
                                                *message_events("m1", "half", 1)[:3]])
    assert [i.taken_back for i in interrupts] == [None]
    types = [(i.get("type"), i.get("call_id")) for i in conv.history.items]
    assert types[:3] == [("message", None), ("function_call", "call_1"), ("function_call_output", "call_1")]
    assert "<turn_aborted>" in conv.history.items[-1]["content"][0]["text"]
