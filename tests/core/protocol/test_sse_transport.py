"""The SSE transport over httpx: request shape, errors, big and odd payloads, cuts."""

from __future__ import annotations

import asyncio
import json
from contextlib import aclosing

import httpx
import pytest
from helpers.mock_api import settings, sse_response, transport_for
from helpers.streams import body, completed, created, message, message_events, simple_text_response

from rivulet.core import errors
from rivulet.core.protocol import http_client
from rivulet.core.protocol.events import Completed, Delta
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.state_machine import consume_response

KEY = "sk-test-secret-key-123456"


async def collect(transport, request=None):
    async with aclosing(transport.stream(request or {"model": "m", "input": []})) as events:
        return await consume_response(events)


async def test_request_is_a_streaming_post_with_bearer_auth_and_extra_headers():
    seen: list[httpx.Request] = []

    def handler(request):
        seen.append(request)
        return sse_response([simple_text_response("hi")])

    t = transport_for(handler, headers={"OpenAI-Project": "proj_1"})
    result = await collect(t, {"model": "gpt-x", "input": [{"type": "message"}], "background": True})
    assert result.last_message == "hi"
    (req,) = seen
    assert req.method == "POST" and str(req.url) == "http://test.invalid/v1/responses"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["accept"] == "text/event-stream"
    assert req.headers["openai-project"] == "proj_1"
    sent = json.loads(req.content)
    assert sent["stream"] is True and sent["model"] == "gpt-x" and "background" not in sent


@pytest.mark.parametrize("status, payload, cls", [
    (429, {"error": {"message": "Rate limit reached. Please try again in 2s.", "code": "rate_limit_exceeded"}},
     errors.RateLimited),
    (400, {"error": {"message": "context too long", "code": "context_length_exceeded"}}, errors.ContextLengthExceeded),
    (500, {"error": {"message": "oops", "type": "server_error"}}, errors.ServerError),
])
async def test_http_errors_map_to_typed_errors(status, payload, cls):
    t = transport_for(lambda r: httpx.Response(status, json=payload))
    with pytest.raises(cls) as info:
        await collect(t)
    assert info.value.status == status


async def test_retry_after_ms_header_sets_the_delay():
    t = transport_for(lambda r: httpx.Response(429, headers={"retry-after-ms": "1500"},
                                               json={"error": {"message": "slow", "code": "rate_limit_exceeded"}}))
    with pytest.raises(errors.RateLimited) as info:
        await collect(t)
    assert info.value.retry_after == 1.5 and info.value.retryable


async def test_the_key_never_appears_in_an_error():
    t = transport_for(lambda r: httpx.Response(401, json={"error": {"message": f"Incorrect API key provided: {KEY}",
                                                                    "code": "invalid_api_key"}}))
    with pytest.raises(errors.AuthenticationError) as info:
        await collect(t)
    assert KEY not in str(info.value) and KEY not in json.dumps(info.value.to_json())


async def test_data_lines_of_more_than_100_kb():
    big = "x" * 150_000 + "é" * 20_000
    t = transport_for(lambda r: sse_response([simple_text_response(big)]))
    assert (await collect(t)).last_message == big


async def test_multi_line_data_fields_are_joined_with_newlines():
    text = "line one\nline two"
    raw = simple_text_response(text)  # sse_body writes one data: line per JSON line
    pretty = []
    for block in raw.decode().split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: "):
                obj = json.loads(line[6:])
                pretty.extend("data: " + ln for ln in json.dumps(obj, indent=1).split("\n"))
            elif line:
                pretty.append(line)
        pretty.append("")
    body_bytes = "\n".join(pretty).encode()
    assert body_bytes.count(b"\ndata: ") > 100
    t = transport_for(lambda r: sse_response([body_bytes]))
    assert (await collect(t)).last_message == text


async def test_crlf_line_endings_and_comment_keepalives():
    raw = simple_text_response("hello").replace(b"\n", b"\r\n")
    raw = b": keep-alive\r\n\r\n" + raw.replace(b"\r\n\r\n", b"\r\n\r\n: ping\r\n\r\n", 2)
    t = transport_for(lambda r: sse_response([raw]))
    assert (await collect(t)).last_message == "hello"


async def test_reading_stops_at_completed_without_waiting_for_eof(monkeypatch):
    # What follows response.completed is read for a moment only (http_client.read_rest, so
    # that the connection is kept): a server that never closes the stream does not hold the turn.
    monkeypatch.setattr(http_client, "REST_MAX_S", 0.01)

    async def chunks():
        yield simple_text_response("fast")
        await asyncio.Event().wait()  # a server that never closes the stream

    def handler(request):
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks())

    result = await asyncio.wait_for(collect(transport_for(handler)), timeout=30)
    assert result.last_message == "fast"


async def test_events_after_completed_are_not_read():
    raw = simple_text_response("one") + body([created("resp_2")])
    t = transport_for(lambda r: sse_response([raw]))
    async with aclosing(t.stream({})) as events:
        seen = [e async for e in events]
    assert isinstance(seen[-1], Completed)


async def test_eof_without_a_terminal_event_is_a_stream_error():
    partial = body([created(), *message_events("m", "never finished")[:3]])
    with pytest.raises(errors.StreamError, match="closed before response.completed"):
        await collect(transport_for(lambda r: sse_response([partial])))


async def test_a_cut_connection_is_a_retryable_stream_error():
    async def chunks():
        yield body([created(), *message_events("m", "cut")[:2]])
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")

    t = transport_for(lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks()))
    with pytest.raises(errors.StreamError, match="cut mid-response") as info:
        await collect(t)
    assert info.value.retryable


async def test_idle_timeout_between_events():
    async def chunks():
        yield body([created()])
        await asyncio.Event().wait()

    t = transport_for(lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks()),
                      idle_timeout=0.2)
    with pytest.raises(errors.StreamError, match="idle timeout"):
        await collect(t)
    # The task is usable afterwards: the watchdog's cancellation was consumed.
    assert asyncio.current_task().cancelling() == 0


@pytest.mark.parametrize("filler", [b": keep-alive\n\n", b" ", b"data: {\"type\": \"response.output_te"[:1]])
async def test_comments_and_trickled_bytes_do_not_keep_a_dead_stream_alive(filler):
    """The idle timeout counts seconds without a *complete event*: keep-alive comments
    or a trickle of bytes that never completes one do not reset it."""
    async def chunks():
        yield body([created()])
        for _ in range(400):  # ~20 s of filler if nothing stopped it
            await asyncio.sleep(0.05)
            yield filler

    t = transport_for(lambda r: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=chunks()),
                      idle_timeout=0.3)
    with pytest.raises(errors.StreamError, match="idle timeout"):
        await collect(t)


async def test_a_slow_consumer_is_not_server_idleness():
    """The idle clock is held while the consumer has the event (e.g. awaiting approval)."""
    t = transport_for(lambda r: sse_response([simple_text_response("patient")]), idle_timeout=0.1)
    got = []
    async with aclosing(t.stream({})) as events:
        async for e in events:
            if isinstance(e, Delta):
                await asyncio.sleep(0.25)  # longer than the idle timeout, while holding the event
            got.append(e)
    assert isinstance(got[-1], Completed)


async def test_non_sse_content_type_is_a_clear_error():
    t = transport_for(lambda r: httpx.Response(200, headers={"content-type": "text/html"}, text="<html>proxy</html>"))
    with pytest.raises(errors.MalformedEventError, match="expected text/event-stream"):
        await collect(t)


async def test_malformed_data_mid_stream_keeps_what_was_committed():
    raw = body([created(), *message_events("m0", "kept")]) + b"data: {broken\n\n"
    committed = []

    from rivulet.core.turn.state_machine import SamplingSink

    class Sink(SamplingSink):
        async def commit(self, key, item, *, backfilled=False):
            committed.append(key)

    with pytest.raises(errors.MalformedEventError):
        async with aclosing(transport_for(lambda r: sse_response([raw])).stream({})) as events:
            await consume_response(events, Sink())
    assert committed == ["m0"]


async def test_connection_refused_is_a_stream_error():
    # A port nobody listens on, on loopback.
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t = SseTransport(settings(base_url=f"http://127.0.0.1:{port}/v1"))
    try:
        with pytest.raises(errors.StreamError, match="failed"):
            await collect(t)
    finally:
        await t.aclose()


async def test_done_marker_ends_the_payloads():
    raw = body([created(), *message_events("m", "x"), completed([message("m", "x")])])
    t = transport_for(lambda r: sse_response([b"data: [DONE]\n\n" + raw]))
    with pytest.raises(errors.StreamError):
        await collect(t)


async def test_an_html_error_page_is_one_line_and_its_whole_body_is_logged_at_debug(caplog):
    page = "<html><head><title>502 Bad Gateway</title></head><body>" + "<p>upstream detail</p>" * 50 + "</body></html>"
    t = transport_for(lambda r: httpx.Response(502, headers={"content-type": "text/html"}, text=page))
    with caplog.at_level("DEBUG", logger="rivulet.core.protocol.sse_transport"), \
            pytest.raises(errors.ServerError) as info:
        await collect(t)
    assert info.value.message == "502 Bad Gateway" and info.value.body == page
    assert any("upstream detail" in r.getMessage() for r in caplog.records)
