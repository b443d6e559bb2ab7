"""The Responses WebSocket transport: reuse, incremental requests, liveness, errors,
fallback to SSE, and a differential run against aimock over SSE and over WebSocket."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from contextlib import aclosing
from typing import Any

import pytest
from helpers.mock_api import serving, settings
from helpers.streams import body, call, call_events, completed, created, message, message_events
from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

from rivulet.core import errors
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.protocol.ws_transport import FallbackTransport, WebSocketTransport
from rivulet.core.turn.bus import EventBus
from rivulet.core.turn.conversation import Conversation, RetryPolicy
from rivulet.core.turn.state_machine import consume_response


def events_of(payloads: list[str]) -> list[dict]:
    return [json.loads(p) for p in payloads]


def tool_response() -> list[dict]:
    return events_of([created("resp_1"), *call_events("fc_1", "call_1", "lookup", '{"q": 1}', 0),
                      completed([call("fc_1", "call_1", "lookup", '{"q": 1}')], "resp_1")])


def text_response(rid: str, text: str) -> list[dict]:
    return events_of([created(rid), *message_events(f"m_{rid}", text, 0), completed([message(f"m_{rid}", text)], rid)])


Step = dict | tuple  # an event to send, or ("ping",), ("sleep", s), ("close",)


class ScriptedServer:
    """A WebSocket Responses server: answers the n-th request with script(n, request)."""

    def __init__(self, script: Callable[[int, dict], list[Step]], refuse: int | None = None) -> None:
        self.script = script
        self.refuse = refuse
        self.requests: list[dict] = []
        self.connections = 0

    async def __aenter__(self) -> ScriptedServer:
        def process_request(connection, request):
            if self.refuse is not None:
                return Response(self.refuse, "Upgrade Required", Headers({"content-type": "text/plain"}),
                                b"use SSE")
            return None

        self._server = await serve(self._handle, "127.0.0.1", 0, process_request=process_request)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self

    async def __aexit__(self, *exc) -> None:
        self._server.close()
        await self._server.wait_closed()

    async def _handle(self, ws) -> None:
        self.connections += 1
        async for raw in ws:
            request = json.loads(raw)
            self.requests.append(request)
            for step in self.script(len(self.requests) - 1, request):
                if isinstance(step, dict):
                    await ws.send(json.dumps(step))
                elif step[0] == "ping":
                    await ws.ping()
                elif step[0] == "sleep":
                    await asyncio.sleep(step[1])
                elif step[0] == "close":
                    ws.transport.abort()
                    return


def ws_conversation(server: ScriptedServer, **kw: Any) -> tuple[Conversation, WebSocketTransport]:
    s = settings(base_url=server.base_url, **kw)
    transport = WebSocketTransport(s, ping_interval=None)
    return Conversation(s, transport, retry=RetryPolicy(max_retries=2, base_delay=0.0)), transport


def test_url():
    assert WebSocketTransport(settings(base_url="https://api.openai.com/v1")).url == "wss://api.openai.com/v1/responses"
    assert WebSocketTransport(settings(base_url="http://127.0.0.1:8000/v1/")).url == "ws://127.0.0.1:8000/v1/responses"


async def test_one_socket_several_requests_and_incremental_follow_ups():
    script = {0: tool_response(), 1: text_response("resp_2", "The answer."), 2: text_response("resp_3", "Again.")}
    async with ScriptedServer(lambda n, r: script[n]) as server:
        conv, transport = ws_conversation(server)
        await conv.run_turn("first")
        await conv.run_turn("second")
        await transport.aclose()
    assert server.connections == 1 and transport.handshakes == 1 and len(server.requests) == 3
    first, follow, second = server.requests
    assert first["type"] == "response.create" and "stream" not in first and "previous_response_id" not in first
    assert [i["type"] for i in first["input"]] == ["message"]
    # The follow-up sends only the tool output, on top of the response that asked for it.
    assert follow["previous_response_id"] == "resp_1"
    assert follow["input"] == [{"type": "function_call_output", "call_id": "call_1",
                                "output": "error: tool 'lookup' is not available in this client"}]
    # The next turn builds on the follow-up's response: only the new user message goes.
    assert second["previous_response_id"] == "resp_2"
    assert [(i["type"], i.get("role")) for i in second["input"]] == [("message", "user")]
    assert {k: v for k, v in second.items() if k not in ("input", "previous_response_id")} == \
        {k: v for k, v in first.items() if k != "input"}


async def test_a_changed_field_or_a_fresh_socket_sends_the_full_request():
    script = {0: text_response("resp_1", "one"), 1: text_response("resp_2", "two"),
              2: text_response("resp_3", "three")}
    async with ScriptedServer(lambda n, r: script[n]) as server:
        conv, transport = ws_conversation(server)
        await conv.run_turn("first")
        conv.settings.instructions = "Be brief."  # a non-input field changed
        await conv.run_turn("second")
        await transport.aclose()  # the next request opens a fresh socket
        await conv.run_turn("third")
    assert [("previous_response_id" in r) for r in server.requests] == [False, False, False]
    assert [len(r["input"]) for r in server.requests] == [1, 3, 5]
    assert server.connections == 2


async def test_a_close_mid_response_drops_the_socket_and_the_retry_reconnects_with_a_full_request():
    full = text_response("resp_2", "whole answer")
    script = {0: text_response("resp_1", "one"), 1: [*full[:4], ("close",)], 2: full}
    async with ScriptedServer(lambda n, r: script[n]) as server:
        conv, transport = ws_conversation(server)
        await conv.run_turn("first")
        result = await conv.run_turn("second")
        await transport.aclose()
    assert result.last_message == "whole answer"
    assert server.connections == 2 and transport.handshakes == 2
    retry = server.requests[2]
    assert "previous_response_id" not in retry and len(retry["input"]) == 3
    assert [i.get("role") for i in retry["input"]] == ["user", "assistant", "user"]


async def test_error_frames_map_like_http_errors_and_drop_the_socket():
    frame = {"type": "error", "status": 429,
             "error": {"type": "rate_limit_error", "code": "rate_limit_exceeded",
                       "message": "Rate limit reached. Please try again in 1.5s."}}
    async with ScriptedServer(lambda n, r: [frame] if n == 0 else text_response("resp_2", "ok")) as server:
        s = settings(base_url=server.base_url)
        transport = WebSocketTransport(s, ping_interval=None)
        with pytest.raises(errors.RateLimited) as caught:
            async with aclosing(transport.stream({"model": "m", "input": []})) as events:
                await consume_response(events)
        assert caught.value.retry_after == 1.5
        async with aclosing(transport.stream({"model": "m", "input": []})) as events:
            result = await consume_response(events)
        await transport.aclose()
    assert result.last_message == "ok" and transport.handshakes == 2


async def test_a_server_that_answers_pings_but_stalls_mid_response_times_out():
    """Issue 23.1: pings and pongs prove the socket is open, not that the response
    moves. The server pings every 50 ms and its library answers rivulet's own pings (every
    50 ms here), yet sends no event: the idle timeout fires, as a retryable one-line
    error, and the retry (on a fresh socket) completes the turn."""
    def script(n: int, request: dict) -> list[Step]:
        events = text_response("resp_1", "the answer")
        if n == 0:  # stalls for up to 3 s (then closes: on today's main that close ends it instead)
            return [events[0], events[1], *[("ping",), ("sleep", 0.05)] * 60, ("close",)]
        return events

    async with ScriptedServer(script) as server:
        s = settings(base_url=server.base_url, idle_timeout=0.5)
        transport = WebSocketTransport(s, ping_interval=0.05)
        bus = EventBus()
        seen: list = []
        bus.subscribe(seen.append)
        conv = Conversation(s, transport, bus, retry=RetryPolicy(max_retries=1, base_delay=0.0))
        result = await conv.run_turn("think hard")
        await bus.drain()
        await transport.aclose()
    retries = [e for e in seen if e.type == "retrying"]
    assert len(retries) == 1
    error = retries[0].error
    assert isinstance(error, errors.StreamError) and error.retryable
    assert "idle timeout" in error.message and "\n" not in error.message
    assert result.last_message == "the answer" and server.connections == 2


async def test_a_websocket_message_over_the_cap_is_one_clear_error_and_keeps_what_was_committed():
    """Issue 21: one WebSocket message is capped (max_size); a larger one ends the turn
    with LimitExceeded (not retried), and the message committed before it stays."""
    big = "x" * (3 * 1024 * 1024)  # over the 1 MiB floor that max_item_chars=1000 leaves

    def script(n: int, request: dict) -> list[Step]:
        events = text_response("resp_1", "kept")
        # An event type rivulet ignores: only the message's size can stop it.
        return [*events[:-1], {"type": "response.vendor_padding", "pad": big}, events[-1]]

    async with ScriptedServer(script) as server:
        s = settings(base_url=server.base_url, max_item_chars=1000)
        transport = WebSocketTransport(s, ping_interval=None)
        conv = Conversation(s, transport, retry=RetryPolicy(max_retries=2, base_delay=0.0))
        with pytest.raises(errors.LimitExceeded, match="WebSocket message .* larger than 1 MiB"):
            await conv.run_turn("hi")
        await transport.aclose()
    assert len(server.requests) == 1  # not retried
    assert [i["content"][0]["text"] for i in conv.history.items if i.get("role") == "assistant"] == ["kept"]


async def test_a_quiet_stream_without_pings_times_out():
    def script(n: int, request: dict) -> list[Step]:
        events = text_response("resp_1", "too late")
        return [events[0], ("sleep", 1.0), *events[1:]]

    async with ScriptedServer(script) as server:
        s = settings(base_url=server.base_url, idle_timeout=0.3)
        transport = WebSocketTransport(s, ping_interval=None)
        with pytest.raises(errors.StreamError, match="idle timeout"):
            async with aclosing(transport.stream({"model": "m", "input": []})) as events:
                await consume_response(events)
        assert transport._ws is None  # dropped, not reused
        await transport.aclose()


async def test_426_falls_back_to_sse_for_the_session():
    notices: list[str] = []
    async with ScriptedServer(lambda n, r: [], refuse=426) as server:
        s = settings(base_url=server.base_url)
        sse_requests: list = []
        sse = serving(body([created("r1"), *message_events("m1", "over SSE"), completed([message("m1", "over SSE")],
                                                                                       "r1")]),
                      requests=sse_requests)
        transport = FallbackTransport(WebSocketTransport(s, ping_interval=None), sse, on_fallback=notices.append)
        conv = Conversation(s, transport)
        first = await conv.run_turn("hello")
        second = await conv.run_turn("again")
        await transport.aclose()
    assert first.last_message == second.last_message == "over SSE"
    assert len(sse_requests) == 2 and server.connections == 0
    assert len(notices) == 1 and "426" in notices[0] and transport.name == "sse"


async def test_repeated_failures_fall_back_to_sse_and_the_turn_succeeds():
    notices: list[str] = []
    async with ScriptedServer(lambda n, r: [events_of([created(f"r{n}")])[0], ("close",)]) as server:
        s = settings(base_url=server.base_url)
        sse = serving(body([created("r9"), *message_events("m9", "rescued"), completed([message("m9", "rescued")],
                                                                                      "r9")]))
        transport = FallbackTransport(WebSocketTransport(s, ping_interval=None), sse, max_failures=2,
                                      on_fallback=notices.append)
        conv = Conversation(s, transport, retry=RetryPolicy(max_retries=3, base_delay=0.0))
        result = await conv.run_turn("hello")
        await transport.aclose()
    assert result.last_message == "rescued"
    assert len(server.requests) == 2 and len(notices) == 1 and "2 failures in a row" in notices[0]


async def test_failures_separated_by_successes_do_not_fall_back():
    """"In a row" means in a row: a success between two failures resets the count (the
    consumer closes the stream at Completed, so the reset must happen there)."""
    def script(n, request):
        if n % 2 == 0:  # every other connection is cut mid-response
            return [events_of([created(f"r{n}")])[0], ("close",)]
        return text_response(f"r{n}", f"answer {n}")

    notices: list[str] = []
    async with ScriptedServer(script) as server:
        s = settings(base_url=server.base_url)
        transport = FallbackTransport(WebSocketTransport(s, ping_interval=None), serving(b""), max_failures=2,
                                      on_fallback=notices.append)
        conv = Conversation(s, transport, retry=RetryPolicy(max_retries=2, base_delay=0.0))
        for turn in range(3):
            await conv.run_turn(f"turn {turn}")
        await transport.aclose()
    assert notices == [] and transport.name == "ws"
    assert transport.failures == 0


# ---- differential: aimock over SSE and over WebSocket ----------------------------------

_ID = re.compile(r"^(resp|msg|rs|fc|call|item|ws)[-_][A-Za-z0-9_-]+$")
_ID_KEYS = ("id", "call_id", "item_id", "response_id", "encrypted_content")


def _normalise(value: Any, names: dict[str, str]) -> Any:
    """Ids made up anew by the server for each response become placeholders, numbered
    by first appearance; timestamps go. Everything else must be identical."""
    if isinstance(value, dict):
        return {k: (names.setdefault(v, f"<id{len(names)}>") if k in _ID_KEYS and isinstance(v, str)
                    else _normalise(v, names))
                for k, v in value.items() if k not in ("created_at", "completed_at")}
    if isinstance(value, list):
        return [_normalise(v, names) for v in value]
    if isinstance(value, str) and _ID.match(value):
        return names.setdefault(value, f"<id{len(names)}>")
    return value


async def _scripted_conversation(transport, s) -> tuple[list[dict], list[dict]]:
    bus = EventBus()
    seen: list[dict] = []

    def timeless(event) -> dict:  # a turn's speed (time to first token, tokens/s) is the machine's, not the wire's
        out = event.to_json()
        if isinstance(out.get("cost"), dict):
            out["cost"] = {k: v for k, v in out["cost"].items() if k not in ("ttft_s", "tokens_per_s")}
        return out

    bus.subscribe(lambda e: seen.append(timeless(e)))
    conv = Conversation(s, transport, bus, retry=RetryPolicy(max_retries=0))
    await conv.run_turn("weather-tool in Paris")  # a function call, its output, a follow-up
    await conv.run_turn("think-first")  # reasoning, then a message
    await conv.run_turn("say-hello")
    await bus.drain()
    await transport.aclose()
    names: dict[str, str] = {}
    return _normalise(seen, names), _normalise(conv.history.items, names)


async def test_the_same_conversation_over_sse_and_websocket_is_identical(aimock):
    s = settings(base_url=aimock, api_key=None, model="gpt-test")
    sse_events, sse_history = await _scripted_conversation(SseTransport(s), s)
    # aimock keeps no responses, so previous_response_id would mean nothing to it.
    ws = WebSocketTransport(s, incremental=False, ping_interval=None)
    ws_events, ws_history = await _scripted_conversation(ws, s)
    assert ws.handshakes == 1  # three turns, four requests, one socket
    assert len(sse_events) > 40
    assert ws_history == sse_history
    assert ws_events == sse_events


def test_exec_over_the_websocket(aimock):
    from helpers.aimock import events, rivulet

    proc = rivulet("exec", "weather-tool", "--json", "--base-url", aimock, "--transport", "ws",
                   env={"RIVULET_WS_INCREMENTAL": "false"})
    assert proc.returncode == 0, proc.stderr
    evs = events(proc)
    assert evs[-1]["last_message"] == "I could not check the weather: the tool is not available."
    assert not [e for e in evs if e["type"] == "notice"]  # no fallback: it was the WebSocket throughout


async def test_frames_go_as_text_with_the_text_as_written():
    async def handler(ws) -> None:
        async for raw in ws:
            kinds.append(type(raw))
            requests.append(json.loads(raw))
            for event in text_response("resp_1", "ok"):
                await ws.send(json.dumps(event))

    kinds: list[type] = []
    requests: list[dict] = []
    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        s = settings(base_url=f"http://127.0.0.1:{port}/v1")
        transport = WebSocketTransport(s, ping_interval=None)
        await Conversation(s, transport).run_turn("naïve café — 東京 \U0001f600")
        await transport.aclose()
    assert kinds == [str]  # a text frame, as the API expects, not a binary one
    assert requests[0]["input"][0]["content"][0]["text"] == "naïve café — 東京 \U0001f600"


def test_a_follow_up_is_incremental_only_when_every_earlier_item_is_unchanged():
    transport = WebSocketTransport(settings(), ping_interval=None)
    sent = [{"type": "message", "id": "m1", "role": "user", "content": "a"}]
    output = [{"type": "message", "id": "m2", "role": "assistant", "content": "b"}]
    transport._prev = ({"model": "x"}, [*sent, *output], "resp_1")
    # The same objects, or equal ones without their ids: only the new item goes.
    same = transport._frame({"model": "x", "input": [sent[0], {k: v for k, v in output[0].items() if k != "id"},
                                                     {"type": "message", "role": "user", "content": "c"}]}, False)
    assert same["previous_response_id"] == "resp_1" and [i["content"] for i in same["input"]] == ["c"]
    # An earlier item that changed (an edit, a compaction): the whole input goes again.
    edited = transport._frame({"model": "x", "input": [{**sent[0], "content": "A"}, output[0],
                                                       {"type": "message", "role": "user", "content": "c"}]}, False)
    assert "previous_response_id" not in edited and len(edited["input"]) == 3


def test_a_long_chats_follow_up_compares_only_what_it_did_not_send_itself(monkeypatch: pytest.MonkeyPatch):
    from rivulet.core.protocol import ws_transport

    copied = [0]
    real = ws_transport._strip_id

    def counted(item: Any) -> Any:
        copied[0] += 1
        return real(item)

    monkeypatch.setattr(ws_transport, "_strip_id", counted)
    transport = WebSocketTransport(settings(), ping_interval=None)
    sent = [{"type": "message", "role": "user", "content": f"q{n}"} for n in range(1000)]
    output = [{"type": "message", "id": "m1", "role": "assistant", "content": "a"}]
    transport._prev = ({"model": "x"}, [*sent, *output], "resp_1")
    frame = transport._frame({"model": "x", "input": [*sent, {"type": "message", "role": "assistant", "content": "a"},
                                                      {"type": "message", "role": "user", "content": "next"}]}, False)
    assert frame["previous_response_id"] == "resp_1" and len(frame["input"]) == 1
    assert copied[0] == 2  # the response's one output item, both sides; before: 2,002
