"""Compaction: the server's /responses/compact where it exists, a model-written summary
elsewhere, the automatic threshold, and the session file that records it."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.mock_api import settings, sse_response
from helpers.recorded import recording
from helpers.streams import body, call, call_events, completed, created, simple_text_response

from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.store.export import to_markdown
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn import compaction as cp
from rivulet.core.turn.bus import EventBus, Notice
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.history import History
from rivulet.core.turn.tool_api import NoTools

BIG = "lorem ipsum " * 400  # a long answer: what compaction is for


def _valid(request_input: list[dict]) -> None:
    calls = sorted(i["call_id"] for i in request_input if i.get("type") == "function_call")
    outputs = sorted(i["call_id"] for i in request_input if i.get("type") == "function_call_output")
    assert calls == outputs, (calls, outputs)


class Tools(NoTools):
    def specs(self):
        return [{"type": "function", "name": "look", "parameters": {"type": "object", "properties": {}}}]

    async def run(self, c):
        return {"type": "function_call_output", "call_id": c["call_id"], "output": "seen " * 200}


def _tool_turn(n: int) -> list[bytes]:
    """A turn that calls a tool, then answers at length."""
    first = body([created(f"r{n}a"), *call_events(f"fc_{n}", f"call_{n}", "look", "{}"),
                  completed([call(f"fc_{n}", f"call_{n}", "look", "{}")], f"r{n}a")])
    return [first, simple_text_response(f"answer {n}: {BIG}", f"r{n}b", f"m{n}")]


class Server:
    """/responses answers from a queue of SSE bodies; /responses/compact from `compact`."""

    def __init__(self, streams: list[bytes], compact: httpx.Response | None = None) -> None:
        self.streams = list(streams)
        self.compact = compact
        self.requests: list[tuple[str, dict]] = []
        self.override: httpx.Response | None = None  # answers every request when set

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.url.path, json.loads(request.content)))
        if self.override is not None:
            return self.override
        if request.url.path.endswith("/responses/compact"):
            return self.compact or httpx.Response(404, text="Not Found")
        return sse_response([self.streams.pop(0)])

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))

    def bodies(self, path: str = "/v1/responses") -> list[dict]:
        return [b for p, b in self.requests if p == path]


def _conversation(server: Server, session: SessionWriter | None = None, **kw) -> Conversation:
    s = settings(**kw)
    return Conversation(s, SseTransport(s, server.client()), tools=Tools(), session=session)


# ---- summary (every server) ---------------------------------------------------------------------


async def test_a_summary_replaces_older_turns_and_the_next_request_is_smaller_and_valid(tmp_path):
    summary = "The user asked three questions; each answer used the look tool."
    server = Server([*_tool_turn(1), *_tool_turn(2), *_tool_turn(3),
                     simple_text_response(summary, "rs", "ms"), simple_text_response("fine", "r4", "m4")])
    writer, meta = SessionWriter.create(model="gpt-test", base_url="http://x", directory=tmp_path)
    conv = _conversation(server, writer, model="gpt-test", compaction="auto")
    for n in range(3):
        await conv.run_turn(f"question {n + 1}")
    before = len(json.dumps(server.bodies()[-1]))
    done = await cp.compact(conv, keep_turns=1)
    # The summary request: the older turns, then the fixed prompt, and no tools.
    asked = server.bodies()[-1]
    assert asked["input"][-1]["content"][0]["text"] == cp.SUMMARY_PROMPT
    assert "tools" not in asked and "tool_choice" not in asked
    assert [i.get("call_id") for i in asked["input"] if i["type"] == "function_call"] == ["call_1", "call_2"]
    assert done.mode == "summary" and done.summary == summary and len(done.replaced) == 8
    assert len(conv.history) == 1 + 4  # the summary, then turn 3 as it was
    await conv.run_turn("question 4")
    sent = server.bodies()[-1]["input"]
    _valid(sent)
    assert sent[0]["role"] == "user" and summary in sent[0]["content"][0]["text"]
    assert sent[1]["content"][0]["text"] == "question 3"
    after = len(json.dumps(server.bodies()[-1]))
    assert after < before / 2, (before, after)
    # The session file records it; resume gives the same history and goes on numbering.
    writer.close()
    loaded = load_session(meta.path)
    assert loaded.warnings == []
    assert loaded.history.items == conv.history.items
    assert [e.seq for e in loaded.history.entries] == [e.seq for e in conv.history.entries]
    (c,) = loaded.history.compactions
    assert (c.mode, len(c.replaced), c.summary, c.segment) == ("summary", 8, summary, "compact-1")
    assert c.replaced[0].item["content"][0]["text"] == "question 1"  # the inspector can show what went
    markdown = to_markdown(loaded)
    assert f"## Summary of the earlier conversation (compacted)\n\n{summary}\n" in markdown
    assert "question 1" not in markdown and "<conversation_summary>" not in markdown
    resumed = Conversation(settings(model="gpt-test"), SseTransport(settings(), Server([]).client()),
                           history=loaded.history)
    assert (resumed.turns, resumed.requests) == (4, 7)


async def test_compacting_a_single_turn_summarises_all_of_it():
    server = Server([*_tool_turn(1), simple_text_response("all of it", "rs", "ms")])
    conv = _conversation(server)
    await conv.run_turn("only question")
    done = await cp.compact(conv)
    assert len(done.replaced) == 4 and len(conv.history) == 1
    assert "all of it" in conv.history.items[0]["content"][0]["text"]


@pytest.mark.parametrize("answer, words", [
    (httpx.Response(500, text="<html><title>Oops</title></html>", headers={"content-type": "text/html"}),
     "the summary request failed: Oops; nothing was compacted"),
    (simple_text_response("", "rs", "ms"), "cannot compact: the model wrote no summary; nothing was compacted"),
])
async def test_a_failed_summary_changes_nothing(answer, words):
    server = Server([simple_text_response("hello", "r1", "m1")])
    conv = _conversation(server, max_retries=0)
    await conv.run_turn("hi")
    items = conv.history.items
    server.override = answer if isinstance(answer, httpx.Response) else sse_response([answer])
    with pytest.raises(cp.CompactionError) as caught:
        await cp.compact(conv)
    assert str(caught.value) == words and conv.history.items == items and conv.history.compactions == []


async def test_an_empty_conversation_has_nothing_to_compact():
    with pytest.raises(cp.CompactionError, match="nothing to compact"):
        await cp.compact(_conversation(Server([])))


# ---- the server's /responses/compact ------------------------------------------------------------


def _compaction_item() -> dict:
    """The compaction item of a real OpenAI stream (vercel-ai's capture)."""
    for payload in recording("openai-compaction.1.jsonl").payloads:
        event = json.loads(payload)
        if event["type"] == "response.output_item.done" and event["item"]["type"] == "compaction":
            return event["item"]
    raise AssertionError("no compaction item in the capture")


async def test_openai_compacts_on_the_server_and_history_becomes_its_output(tmp_path):
    item = _compaction_item()  # about 40 KB of encrypted_content: a long conversation's worth
    kept = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "question 1"}]}
    reply = httpx.Response(200, json={"id": "cmp_r", "object": "response.compaction", "created_at": 1,
                                      "output": [kept, item], "usage": {"input_tokens": 5000, "output_tokens": 300,
                                                                        "total_tokens": 5300}})
    long_answer = simple_text_response(BIG * 30, "r1b", "m1")  # about 140 KB
    server = Server([_tool_turn(1)[0], long_answer, simple_text_response("next", "r2", "m2")], reply)
    writer, meta = SessionWriter.create(model="gpt-test", base_url="http://x", directory=tmp_path)
    s = settings(base_url="https://api.openai.com/v1", model="gpt-5.2", instructions="be brief")
    conv = Conversation(s, SseTransport(s, server.client()), tools=Tools(), session=writer)
    await conv.run_turn("question 1")
    before = len(json.dumps(conv.build_request()))  # what the next request would carry uncompacted
    done = await cp.compact(conv, client=server.client())
    (asked,) = server.bodies("/v1/responses/compact")
    assert asked["model"] == "gpt-5.2" and asked["instructions"] == "be brief"
    assert [i["type"] for i in asked["input"]] == ["message", "function_call", "function_call_output", "message"]
    assert done.mode == "server" and conv.history.items == [kept, item]
    await conv.run_turn("question 2")
    sent = server.bodies()[-1]["input"]
    assert [i["type"] for i in sent] == ["message", "compaction", "message"]
    assert sent[1]["encrypted_content"] == item["encrypted_content"] and "id" not in sent[1]  # store: false
    assert len(json.dumps(server.bodies()[-1])) < before
    writer.close()
    loaded = load_session(meta.path)
    assert loaded.history.items == conv.history.items
    assert "*(the earlier conversation was compacted by the server)*" in to_markdown(loaded)


async def test_a_missing_endpoint_falls_back_to_a_summary_unless_server_mode_is_forced():
    server = Server([simple_text_response("hi", "r1", "m1"), simple_text_response("summary", "rs", "ms")])
    s = settings(base_url="https://api.openai.com/v1")
    conv = Conversation(s, SseTransport(s, server.client()))
    await conv.run_turn("hello")
    done = await cp.compact(conv, client=server.client())
    assert done.mode == "summary" and [p for p, _ in server.requests][-2:] == ["/v1/responses/compact",
                                                                              "/v1/responses"]
    conv.settings.compaction = "server"
    with pytest.raises(cp.CompactionError) as caught:
        await cp.compact(conv, client=server.client())
    assert str(caught.value) == "https://api.openai.com/v1/responses/compact: HTTP 404: Not Found"


@pytest.mark.parametrize("reply, words", [
    (httpx.Response(200, text="<html>login</html>"), "did not answer with JSON: 'login'"),
    (httpx.Response(200, json={"output": []}), "answered without a list of output items"),
    (httpx.Response(200, json={"output": [{"type": "function_call", "call_id": 5}]}), "sent an unusable item"),
    (httpx.Response(429, json={"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}),
     "HTTP 429: Rate limit reached"),
])
async def test_bad_server_answers_are_one_line_and_change_nothing(reply, words):
    server = Server([simple_text_response("hi", "r1", "m1")], reply)
    s = settings(base_url="http://test.invalid/v1", compaction="server")
    conv = Conversation(s, SseTransport(s, server.client()))
    await conv.run_turn("hello")
    items = conv.history.items
    with pytest.raises(cp.CompactionError) as caught:
        await cp.compact(conv, client=server.client())
    assert words in str(caught.value) and "\n" not in str(caught.value) and conv.history.items == items


async def test_a_compaction_item_in_a_stream_is_kept_and_sent_back():
    """Server-side compaction inside a normal response (context_management): the item
    is committed like any other and goes back to the server in the next request."""
    server = Server([recording("openai-compaction.1.jsonl").body, simple_text_response("ok", "r2", "m2")])
    conv = _conversation(server)
    await conv.run_turn("explain testing")
    await conv.run_turn("thanks")
    sent = server.bodies()[-1]["input"]
    assert [i["type"] for i in sent] == ["message", "message", "compaction", "message"]
    assert sent[2]["encrypted_content"] == _compaction_item()["encrypted_content"]


# ---- the threshold ----------------------------------------------------------------------------------


async def test_crossing_the_threshold_compacts_before_the_next_turn():
    full = {"input_tokens": 900, "output_tokens": 60, "total_tokens": 960}
    server = Server([simple_text_response("one", "r1", "m1"), simple_text_response("two", "r2", "m2", usage=full),
                     simple_text_response("sum", "rs", "ms"), simple_text_response("three", "r3", "m3")])
    bus = EventBus()
    notices: list[str] = []
    bus.subscribe(lambda e: notices.append(e.text), Notice)
    s = settings(context_window=1000, auto_compact_percent=90)
    conv = Conversation(s, SseTransport(s, server.client()), bus)
    assert not cp.needs_compaction(conv)  # nothing known yet
    await conv.run_turn("first")
    assert not cp.needs_compaction(conv)  # 8 tokens of 1000
    await conv.run_turn("second")
    assert cp.needs_compaction(conv)  # 96% used
    await conv.run_turn("third")
    prompts = [b["input"][-1]["content"][0]["text"] for b in server.bodies()]
    assert prompts == ["first", "second", cp.SUMMARY_PROMPT, "third"]
    assert conv.history.compactions[0].mode == "summary" and not cp.needs_compaction(conv)
    await bus.drain()
    # The first turn is summarised; the second, the newest, is kept as it was.
    assert notices == ["the context was 90% full or more: 2 items compacted into 1 (summary)"]
    assert [i["content"][0]["text"] for i in server.bodies()[-1]["input"][1:]] == ["second", "two", "third"]
    conv.last_usage = full
    conv.settings.auto_compact_percent = 0  # off
    assert not cp.needs_compaction(conv)


async def test_a_failed_automatic_compaction_is_told_and_the_turn_goes_on():
    usage = {"total_tokens": 990}
    server = Server([simple_text_response("one", "r1", "m1", usage=usage), simple_text_response("", "rs", "ms"),
                     simple_text_response("two", "r2", "m2")])
    bus = EventBus()
    notices: list[str] = []
    bus.subscribe(lambda e: notices.append(e.text), Notice)
    s = settings(context_window=1000)
    conv = Conversation(s, SseTransport(s, server.client()), bus)
    await conv.run_turn("first")
    result = await conv.run_turn("second")
    assert result.last_message == "two" and conv.history.compactions == []
    await bus.drain()
    assert notices == ["automatic compaction failed (cannot compact: the model wrote no summary; nothing was "
                       "compacted); the request is sent as it is"]


def test_compaction_keeps_track_of_which_model_made_what():
    h = History()
    h.set_model("a", record=False)
    for n in range(3):
        h.append({"type": "message", "role": "user", "content": f"{n}"})
    h.set_model("b")
    h.append({"type": "message", "role": "user", "content": "3"})
    h.compact(2, [{"type": "message", "role": "user", "content": "summary"}], mode="summary")
    assert h.models == [(0, "a"), (2, "b")] and len(h) == 3
    h.compact(3, [{"type": "compaction", "encrypted_content": "x"}], mode="server")
    assert h.models == [(0, "b")]


async def test_an_interrupt_while_compacting_gives_the_prompt_back_and_changes_nothing():
    import asyncio

    from rivulet.core.turn.bus import TurnInterrupted

    server = Server([simple_text_response("one", "r1", "m1", usage={"total_tokens": 999})])
    bus = EventBus()
    interrupted: list[str | None] = []
    bus.subscribe(lambda e: interrupted.append(e.taken_back), TurnInterrupted)
    s = settings(context_window=1000)
    conv = Conversation(s, SseTransport(s, server.client()), bus)
    await conv.run_turn("first")
    items = conv.history.items
    started = asyncio.Event()

    async def slow_compaction(c):
        started.set()
        await asyncio.Event().wait()  # a summary that takes long; the user gives up

    conv.before_turn = slow_compaction
    task = asyncio.create_task(conv.run_turn("second"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await bus.drain()
    assert interrupted == ["second"] and conv.history.items == items


def test_a_hostile_compact_record_is_ignored_with_a_warning(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="http://x", directory=tmp_path)
    writer.close()
    with meta.path.open("a") as f:
        f.write(json.dumps({"type": "item", "seq": 1, "item": {"type": "message", "role": "user", "content": "a"}}) + "\n")
        f.write(json.dumps({"type": "compact", "replaced": -1, "items": [{"type": "message"}]}) + "\n")
        f.write(json.dumps({"type": "compact", "replaced": 1, "items": ["not an item"]}) + "\n")
    loaded = load_session(meta.path)
    assert [i["content"] for i in loaded.history.items] == ["a"] and len(loaded.warnings) == 2


# ---- the turns a summary keeps (issue 25: /compact replaced all 8 of 8 items) -------------------


async def test_compact_of_two_turns_keeps_the_newest_and_the_next_request_carries_it():
    summary = "The user asked about the look tool."
    server = Server([*_tool_turn(1), *_tool_turn(2), simple_text_response(summary, "rs", "ms"),
                     simple_text_response("fine", "r3", "m3")])
    conv = _conversation(server, model="gpt-test", compaction="summary")
    await conv.run_turn("question 1")
    await conv.run_turn("question 2")
    assert len(conv.history) == 8
    done = await cp.compact(conv)  # as /compact does: the setting's default, 2 turns
    assert len(done.replaced) == 4  # turn 1; turn 2 is the one the user is on
    await conv.run_turn("question 3")
    sent = server.bodies()[-1]["input"]
    _valid(sent)
    assert summary in sent[0]["content"][0]["text"]
    assert [i.get("call_id") or i["content"][0]["text"] for i in sent[1:]] == [
        "question 2", "call_2", "call_2", f"answer 2: {BIG}", "question 3"]


async def test_compact_keeps_the_configured_number_of_turns_verbatim():
    server = Server([*_tool_turn(1), *_tool_turn(2), *_tool_turn(3), *_tool_turn(4),
                     simple_text_response("summary", "rs", "ms"), simple_text_response("fine", "r5", "m5")])
    conv = _conversation(server, model="gpt-test", compaction="summary", compact_keep_turns=3)
    for n in range(4):
        await conv.run_turn(f"question {n + 1}")
    kept = conv.history.items[4:]  # turns 2, 3 and 4, as they were
    done = await cp.compact(conv)
    assert len(done.replaced) == 4
    assert conv.history.items[1:] == kept
    await conv.run_turn("question 5")
    sent = server.bodies()[-1]["input"]
    users = [i["content"][0]["text"] for i in sent if i.get("role") == "user"]
    assert users[1:] == ["question 2", "question 3", "question 4", "question 5"]


async def test_compact_keep_turns_0_summarises_everything():
    server = Server([*_tool_turn(1), *_tool_turn(2), simple_text_response("summary", "rs", "ms")])
    conv = _conversation(server, model="gpt-test", compaction="summary", compact_keep_turns=0)
    await conv.run_turn("question 1")
    await conv.run_turn("question 2")
    done = await cp.compact(conv)
    assert len(done.replaced) == 8 and len(conv.history) == 1
