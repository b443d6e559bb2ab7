"""Caps on every byte stream (issue 21): a gzip bomb, an endless SSE line, a huge error
body, a huge JSON answer, each from a real local HTTP server. Past a cap: one clear
error, memory bounded (measured with tracemalloc), the rest never read, and nothing
committed lost. (A huge WebSocket message: tests/core/protocol/test_ws_transport.py.)"""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

import pytest
from helpers.fault_server import Answer, FaultServer, endless, gzip_bomb
from helpers.mock_api import settings
from helpers.streams import created, message_events

from rivulet.core import errors
from rivulet.core.protocol.byte_caps import Inflater
from rivulet.core.protocol.models import ModelsError, fetch_models
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.conversation import Conversation, RetryPolicy
from rivulet.core.turn.state_machine import consume_response

MIB = 1024 * 1024
SSE = {"content-type": "text/event-stream"}
# max_item_chars=1000 leaves the 1 MiB floor as the cap on one event / message / JSON body.
SMALL = {"max_item_chars": 1000}
# A hang on today's main (an endless body read whole) fails here instead of holding the suite.
GUARD = 60.0


async def peak_memory(work: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    """What `work` returned or raised, and the peak of Python memory while it ran."""
    tracemalloc.start()
    try:
        try:
            outcome: Any = await asyncio.wait_for(work(), GUARD)
        except Exception as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def one_response(base_url: str) -> Any:
    transport = SseTransport(settings(base_url=base_url, **SMALL))
    try:
        async with aclosing(transport.stream({"model": "m", "input": []})) as events:
            return await consume_response(events)
    finally:
        await transport.aclose()


def _event(payload: str) -> bytes:
    return f"data: {payload}\n\n".encode()


async def test_a_gzip_bomb_stream_is_refused_with_bounded_memory():
    """200 OK, gzip, inflating to 256 MiB with no event end: httpx would inflate each
    network chunk whole (64 KiB -> 64 MiB) and the decoder would keep it all."""
    with FaultServer(lambda n, m, p: Answer(200, {**SSE, "content-encoding": "gzip"},
                                            gzip_bomb(256 * MIB, b"a"))) as server:
        outcome, peak = await peak_memory(lambda: one_response(server.base_url))
    assert isinstance(outcome, errors.LimitExceeded), outcome
    assert "one server-sent event passed" in outcome.message and not outcome.retryable
    assert peak < 16 * MIB, f"peak {peak / MIB:.0f} MiB"


async def test_an_endless_sse_line_is_refused_before_16_mib_are_read():
    with FaultServer(lambda n, m, p: Answer(200, SSE, endless(b"data: " + b"x" * 65536))) as server:
        outcome, peak = await peak_memory(lambda: one_response(server.base_url))
        sent = server.sent
    assert isinstance(outcome, errors.LimitExceeded), outcome
    assert peak < 16 * MIB and sent < 16 * MIB, (peak, sent)


async def test_a_huge_error_body_is_cut_and_still_classified():
    """An endless 500 body: the error is the server's (retryable), its body kept to the
    1 MiB cap, the rest never read."""
    with FaultServer(lambda n, m, p: Answer(500, {"content-type": "text/plain"},
                                            endless(b"Internal error " * 4096))) as server:
        outcome, peak = await peak_memory(lambda: one_response(server.base_url))
        sent = server.sent
    assert isinstance(outcome, errors.ServerError), outcome
    assert outcome.message.startswith("Internal error") and len(outcome.message) <= errors.ONE_LINE_MAX
    assert outcome.body is not None and len(outcome.body) <= MIB
    assert peak < 16 * MIB and sent < 16 * MIB, (peak, sent)


async def test_a_gzip_bomb_error_body_inflates_no_further_than_its_cap():
    """A real error message, then 256 MiB of padding, all gzipped (~260 KiB sent)."""
    import zlib

    body = b'{"error": {"message": "overloaded", "type": "server_error"}}'
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)

    def stream():
        yield z.compress(body + b" " * MIB)
        for _ in range(256):
            yield z.compress(b" " * MIB)
        yield z.flush()

    with FaultServer(lambda n, m, p: Answer(503, {"content-type": "application/json",
                                                  "content-encoding": "gzip"}, stream())) as server:
        outcome, peak = await peak_memory(lambda: one_response(server.base_url))
    assert isinstance(outcome, errors.ServerError), outcome
    assert peak < 16 * MIB, f"peak {peak / MIB:.0f} MiB"


async def test_a_gzip_bomb_model_list_is_one_clear_error():
    with FaultServer(lambda n, m, p: Answer(200, {"content-type": "application/json",
                                                  "content-encoding": "gzip"},
                                            gzip_bomb(256 * MIB, b"["))) as server:
        outcome, peak = await peak_memory(lambda: fetch_models(settings(base_url=server.base_url, **SMALL)))
    assert isinstance(outcome, ModelsError), outcome
    assert "is larger than 1 MiB" in outcome.message and "\n" not in outcome.message
    assert peak < 16 * MIB, f"peak {peak / MIB:.0f} MiB"


async def test_a_json_depth_bomb_under_the_cap_is_one_clear_error():
    """Under the size cap, 200,000 nested arrays: the JSON parser's RecursionError was a traceback."""
    bomb = Answer(200, {"content-type": "application/json"}, [b"[" * 200_000])
    with FaultServer(lambda n, m, p: bomb) as server, pytest.raises(ModelsError, match="nested too deeply"):
        await fetch_models(settings(base_url=server.base_url))


async def test_an_endless_error_body_on_the_model_list_is_read_no_further_than_its_cap():
    with FaultServer(lambda n, m, p: Answer(502, {"content-type": "text/html"},
                                            endless(b"<html><title>Bad gateway</title>" + b" " * 65536))) as server:
        outcome, peak = await peak_memory(lambda: fetch_models(settings(base_url=server.base_url, **SMALL)))
        sent = server.sent
    assert isinstance(outcome, ModelsError), outcome
    assert "HTTP 502: Bad gateway" in outcome.message
    assert peak < 16 * MIB and sent < 16 * MIB, (peak, sent)


async def test_nothing_committed_is_lost_when_a_later_event_passes_the_cap():
    """A message commits, then an endless event starts: the turn fails with the cap's one
    line (not retried), and the committed message stays in history."""
    head = b"".join(_event(p) for p in [created("resp_1"), *message_events("msg_1", "kept", 0)])

    def answer(n: int, method: str, path: str) -> Answer:
        return Answer(200, SSE, [head, *endless(b"data: " + b"y" * 65536, 8 * MIB)])

    with FaultServer(answer) as server:
        s = settings(base_url=server.base_url, **SMALL)
        conv = Conversation(s, SseTransport(s), retry=RetryPolicy(max_retries=2, base_delay=0.0))
        with pytest.raises(errors.LimitExceeded):
            await asyncio.wait_for(conv.run_turn("hi"), GUARD)
        requests = server.requests
    assert requests == 1
    assert [i["content"][0]["text"] for i in conv.history.items if i.get("role") == "assistant"] == ["kept"]


def test_the_inflater_never_hands_out_more_than_a_bounded_piece():
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    data = z.compress(b"\0" * (64 * MIB)) + z.flush()
    pieces = list(Inflater("gzip").feed(data))
    assert sum(len(p) for p in pieces) == 64 * MIB and max(len(p) for p in pieces) <= 256 * 1024
    with pytest.raises(errors.MalformedEventError, match="unsupported content encoding 'br'"):
        Inflater("br")
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    assert b"".join(Inflater("deflate").feed(raw.compress(b"hello") + raw.flush())) == b"hello"
