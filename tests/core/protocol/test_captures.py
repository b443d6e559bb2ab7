"""Every real capture parses, and what it commits equals the server's final output."""

from __future__ import annotations

import json
from contextlib import aclosing

import pytest
from helpers.mock_api import serving
from helpers.paths import REAL
from helpers.recorded import CAPTURE_FILES, RECORDINGS, recording
from helpers.streams import decode_event

from rivulet.core import errors
from rivulet.core.protocol.events import Completed, Created, Delta, OutputItemAdded, OutputItemDone
from rivulet.core.protocol.unparsed_call import PLAIN, UnparsedToolCall
from rivulet.core.protocol.wire import UnknownWire, as_sent, parse_wire
from rivulet.core.turn.state_machine import SamplingSink, consume_response


def _final(rec):
    last = json.loads(rec.payloads[-1])
    return last


def _summary(item: dict) -> tuple:
    """What must agree: id, type and every piece of text."""
    texts = []
    for part in item.get("content") or []:
        if isinstance(part, dict):
            texts.append(part.get("text") or part.get("refusal"))
    for part in item.get("summary") or []:
        if isinstance(part, dict):
            texts.append(part.get("text"))
    return (item.get("id"), item.get("type"), tuple(texts), item.get("arguments"), item.get("input"),
            item.get("call_id"))


def test_the_set_is_all_there():
    public = [p for p in CAPTURE_FILES if p.parent.name != "llamacpp"]
    llamacpp = [p for p in CAPTURE_FILES if p.parent.name == "llamacpp"]
    assert len(public) == 52 and len(llamacpp) >= 5
    assert len(RECORDINGS) >= 57


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.name)
def test_every_payload_parses_without_exception(rec):
    for data in rec.payloads:
        wire = parse_wire(data)
        assert not isinstance(wire, UnknownWire), f"{wire.type} should be a known event"
        sent = json.loads(data)
        if "type" not in sent:  # llama.cpp's bare error frame is read as an `error` event
            assert wire.type == "error" and wire.error == sent["error"]
            continue
        # Fields are kept as sent: a round trip through the wire event loses nothing, and
        # every declared field decoded to what was sent.
        assert as_sent(wire) == sent
        assert all(getattr(wire, name) == sent[key]
                   for name, key in zip(wire.__struct_fields__, wire.__struct_encode_fields__, strict=True)
                   if key in sent)


COMPLETED = [r for r in RECORDINGS if _final(r).get("type") == "response.completed"]


@pytest.mark.parametrize("rec", COMPLETED, ids=lambda r: r.name)
async def test_committed_items_equal_the_final_output(rec):
    async with aclosing(serving(rec.body).stream({"model": "m", "input": []})) as events:
        result = await consume_response(events)
    output = _final(rec)["response"]["output"]
    if output:
        assert [_summary(i) for i in result.committed] == [_summary(i) for i in output]
    else:
        # One recording scrubbed `output` to []: the done items stand.
        done = [json.loads(p)["item"] for p in rec.payloads if json.loads(p)["type"] == "response.output_item.done"]
        assert [_summary(i) for i in result.committed] == [_summary(i) for i in done]
    assert result.response_id == _final(rec)["response"]["id"]
    assert result.usage == _final(rec)["response"].get("usage")


def test_almost_every_completed_capture_is_checked():
    assert len(COMPLETED) >= 59


class NoteSink(SamplingSink):
    def __init__(self):
        self.rules: list[str] = []
        self.ended: list[str] = []
        self.drawn: dict[str, int] = {}

    async def deviation(self, note):
        self.rules.append(note.rule)

    async def live_ended(self, key):
        self.ended.append(key)

    async def transient(self, key, event):
        self.drawn[key] = self.drawn.get(key, 0) + 1


async def test_llamacpp_overlapping_items_commit_in_order_with_the_deviation_reported():
    """llama-server adds the function call while the message streams and sends every
    output_item.done at the end: accepted (each delta names its item), noted, and the
    history is what response.completed describes."""
    rec = recording("llamacpp_text_then_function_call.sse")
    sink = NoteSink()
    async with aclosing(serving(rec.body).stream({})) as events:
        result = await consume_response(events, sink)
    output = _final(rec)["response"]["output"]
    assert [_summary(i) for i in result.committed] == [_summary(i) for i in output]
    assert [i["type"] for i in result.committed] == ["message", "function_call"]
    assert "overlapping_items" in sink.rules and "no_output_index" in sink.rules
    msg_id = output[0]["id"]
    assert sink.ended == [msg_id]
    # The call is pending: the turn will run it and follow up.
    assert [c["name"] for c in result.pending_calls] == ["current_time"]


async def test_the_same_capture_is_refused_when_strict():
    rec = recording("llamacpp_text_then_function_call.sse")
    with pytest.raises(errors.ProtocolError, match="strict protocol"):
        async with aclosing(serving(rec.body).stream({})) as events:
            await consume_response(events, strict=True)


async def test_llamacpp_error_frame_is_the_servers_error_not_a_malformed_event():
    """What the user sees for this cut-off capture: llama.cpp's chat parser refused the
    model's output, said in plain words with the server's own after it; retryable, once
    (issue 42.5, over 23.7's "not retried"): a new sample usually parses."""
    rec = recording("llamacpp_error_frame_only.sse")
    with pytest.raises(UnparsedToolCall) as info:
        async with aclosing(serving(rec.body).stream({})) as events:
            await consume_response(events)
    assert info.value.retryable
    assert info.value.message == (f"{PLAIN} (the server said: The model produced output that does not match the "
                                  "expected peg-native format)")


@pytest.mark.parametrize("rec", COMPLETED, ids=lambda r: r.name)
async def test_every_capture_is_accepted_in_strict_mode_only_when_it_follows_the_spec(rec):
    """Honest about every deviation: a capture that needed tolerance reports at least
    one deviation, and strict mode refuses exactly those captures."""
    sink = NoteSink()
    async with aclosing(serving(rec.body).stream({})) as events:
        await consume_response(events, sink)
    try:
        async with aclosing(serving(rec.body).stream({})) as events:
            await consume_response(events, strict=True)
        strict_ok = True
    except errors.ProtocolError:
        strict_ok = False
    assert strict_ok == (not sink.rules)


async def test_failed_capture_raises_the_typed_error_first_seen():
    rec = recording("openai-error.1.jsonl")
    with pytest.raises(errors.QuotaExceeded) as info:
        async with aclosing(serving(rec.body).stream({})) as events:
            await consume_response(events)
    assert not info.value.retryable
    assert "quota" in info.value.message


async def test_incomplete_capture_is_a_final_cut_answer():
    """response.incomplete (max_output_tokens) commits what was done and says why;
    it is not an error to retry (that would only repeat the same cut)."""
    rec = recording("response_stream_incomplete.1.sse")
    committed = []

    class Sink(SamplingSink):
        async def commit(self, key, item, *, backfilled=False):
            committed.append(item)

    async with aclosing(serving(rec.body).stream({})) as events:
        result = await consume_response(events, Sink())
    assert result.incomplete == "max_output_tokens"
    assert not result.needs_follow_up
    assert [i["status"] for i in committed] == ["incomplete"]
    assert result.last_message and result.last_message == committed[0]["content"][0]["text"]


async def test_mapped_event_order_is_the_wire_order():
    """Contract 1: Created -> Item -> Done -> Completed, event by event."""
    rec = recording("openai_responses_post_aaef3e68.sse")
    mapped = [decode_event(p) for p in rec.payloads]
    wire_types = [json.loads(p)["type"] for p in rec.payloads]
    assert len(mapped) == len(wire_types)
    kinds = {Created: "response.created", OutputItemAdded: "response.output_item.added",
             OutputItemDone: "response.output_item.done", Completed: "response.completed"}
    for ev, wtype in zip(mapped, wire_types, strict=True):
        if type(ev) in kinds:
            assert kinds[type(ev)] == wtype
        if isinstance(ev, Delta):
            assert wtype == f"response.{ev.kind.value}.delta"
    assert isinstance(mapped[0], Created) and isinstance(mapped[-1], Completed)
    # The transport yields the same sequence (in_progress included) and stops at Completed.
    async with aclosing(serving(rec.body).stream({})) as events:
        streamed = [e async for e in events]
    assert [type(e) for e in streamed] == [type(e) for e in mapped]


LLAMACPP_COMPLETED = {
    # capture: (committed item types, deviations that must be reported, pending call names)
    "llamacpp_reasoning_then_message.sse": (["reasoning", "message"], {"overlapping_items"}, []),
    "llamacpp_text_then_shell_call.sse": (["message", "function_call"], {"overlapping_items"}, ["shell"]),
    "llamacpp_reasoning_never_closed.sse": (["reasoning"], {"no_output_index"}, []),
    "llamacpp_apply_patch_function.sse": (["function_call"], {"no_output_index"}, ["apply_patch"]),
    "llamacpp_custom_tool_dropped.sse": (["message"], {"no_output_index"}, []),
    "llamacpp_tool_followup.sse": (["message"], {"no_output_index"}, []),
    # The server cut it at 8 tokens but says "completed": nothing tells a client it was cut.
    "llamacpp_max_output_tokens_8.sse": (["message"], {"no_output_index"}, []),
}


@pytest.mark.parametrize("name", sorted(LLAMACPP_COMPLETED))
async def test_live_llamacpp_captures_commit_their_completed_output(name):
    types, rules, calls = LLAMACPP_COMPLETED[name]
    rec = recording(name)
    sink = NoteSink()
    async with aclosing(serving(rec.body).stream({})) as events:
        result = await consume_response(events, sink)
    assert [i["type"] for i in result.committed] == types
    assert rules <= set(sink.rules)
    assert [c["name"] for c in result.pending_calls] == calls
    assert result.incomplete is None
    if "overlapping_items" in rules:
        # The overtaken item stopped drawing when the next was added, and nothing of it
        # was drawn in the wrong pane: every drawn delta was counted under its own key.
        assert len(sink.ended) == 1 and set(sink.drawn) == {i["id"] for i in result.committed}


@pytest.mark.parametrize("name, error, message, retryable", [
    ("llamacpp_fenced_call_then_error_frame.sse", UnparsedToolCall,
     "did not parse as a tool call .the server said: The model produced output that does not match", True),
    ("llamacpp_killed_midstream.sse", errors.StreamError, "stream closed before response.completed", True),
])
async def test_cut_llamacpp_captures_say_what_the_user_sees(name, error, message, retryable):
    """The user sees a retry for a killed server, the parser's refusal in plain words (asked
    again once by the turn), and nothing half-received commits: the open message and call
    are discarded."""
    rec = recording(name)
    committed, discarded = [], []

    class Sink(SamplingSink):
        async def commit(self, key, item, *, backfilled=False):
            committed.append(key)

        async def discard(self, key, reason):
            discarded.append(key)

    with pytest.raises(error, match=message) as info:
        async with aclosing(serving(rec.body).stream({})) as events:
            await consume_response(events, Sink())
    assert info.value.retryable is retryable
    assert committed == [] and discarded


def test_llamacpp_loading_model_503_is_a_retryable_server_error():
    body = (REAL / "llamacpp" / "llamacpp_503_loading_model.body.json").read_bytes()
    error = errors.error_from_body(503, body)
    assert type(error) is errors.ServerError and error.retryable and error.message == "Loading model"
