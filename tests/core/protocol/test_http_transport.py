"""rivulet's requests on httpx's own transport, as core/protocol/http_client.py configures
it, on real sockets: keep-alive reuse (a turn's requests, streamed and stopped at
response.completed, on one connection; an idle one kept past httpx's default 5 s; one the
server closed while idle never used), both body framings, the response head's size cap,
cuts and timeouts as httpx's own exceptions, and TLS that verifies."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
import threading
import time
from contextlib import aclosing

import httpx
import pytest
from helpers.mock_api import settings
from helpers.raw_http_server import RawServer, response, self_signed_cert, serve_keep_alive
from helpers.streams import simple_text_response

from rivulet.core import errors
from rivulet.core.protocol import http_client
from rivulet.core.protocol.http_client import KEEP_ALIVE_S, new_client
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.bus import EventBus
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.state_machine import consume_response

TIMEOUT = httpx.Timeout(30.0)


def _echo(line: str, headers: dict[str, str], body: bytes) -> bytes:
    return response(json.dumps({"line": line, "length": len(body)}).encode(), content_type="application/json")


@pytest.fixture
def servers():
    made: list[RawServer] = []

    def make(handler):
        made.append(RawServer(handler))
        return made[-1]

    yield make
    for server in made:
        server.close()


async def test_requests_read_to_their_end_reuse_one_connection(servers):
    server = servers(serve_keep_alive(_echo))
    async with new_client(TIMEOUT) as client:
        assert (await client.post(server.url + "/a", json={"x": 1})).json()["length"] == len('{"x":1}')
        async with client.stream("GET", server.url + "/b") as streamed:
            assert json.loads(await streamed.aread())["line"] == "GET /b HTTP/1.1"
        assert (await client.get(server.url + "/c?q=1")).json()["line"] == "GET /c?q=1 HTTP/1.1"
    assert server.connections == 1 and len(server.requests) == 3


async def test_a_turn_of_sse_requests_stopped_at_completed_shares_one_connection(servers):
    # The SSE reader stops at response.completed and closes the response: the end of the
    # message already received is taken, so the follow-up request reuses the connection.
    stream = simple_text_response("hi")
    server = servers(serve_keep_alive(lambda *_: response(stream, content_type="text/event-stream")))
    transport = SseTransport(settings(base_url=server.url + "/v1"))
    try:
        for _ in range(3):
            async with aclosing(transport.stream({"model": "m", "input": []})) as events:
                assert (await consume_response(events)).last_message == "hi"
    finally:
        await transport.aclose()
    assert server.connections == 1 and server.requests == ["POST /v1/responses HTTP/1.1"] * 3


def _chunked_sse(text: str, hold: bool = False):
    """Each answer streamed chunked, as the real API sends it: the events, then the chunked
    framing's end written apart (or, `hold`, never: the stream held open after the answer)."""
    events = simple_text_response(text)

    def handler(conn, n):
        while conn.read_request() is not None:
            conn.send(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
            conn.send(b"%x\r\n%s\r\n" % (len(events), events))
            if hold:
                conn.server.done.wait(60)
                return
            conn.send(b"0\r\n\r\n")
    return handler


async def test_two_turns_of_a_conversation_share_one_connection(servers):
    # The reader stops at response.completed; what follows it (the chunked body's end) is read
    # before the stream closes, so httpcore keeps the connection: on a real API, one TLS
    # handshake for the conversation, not one per request.
    server = servers(_chunked_sse("hi"))
    s = settings(base_url=server.url + "/v1")
    transport = SseTransport(s)
    try:
        conversation = Conversation(s, transport, EventBus())
        for prompt in ("one", "two"):
            assert (await conversation.run_turn(prompt)).last_message == "hi"
    finally:
        await transport.aclose()
    assert server.connections == 1 and server.requests == ["POST /v1/responses HTTP/1.1"] * 2


async def test_a_stream_held_open_after_completed_still_ends_the_turn(servers, monkeypatch):
    # The rest is read for a moment only: then the connection is closed, and the next
    # request has a new one.
    monkeypatch.setattr(http_client, "REST_MAX_S", 0.05)
    server = servers(_chunked_sse("hi", hold=True))
    s = settings(base_url=server.url + "/v1")
    transport = SseTransport(s)
    try:
        conversation = Conversation(s, transport, EventBus())
        for prompt in ("one", "two"):
            assert (await conversation.run_turn(prompt)).last_message == "hi"
    finally:
        await transport.aclose()
    assert server.connections == 2


async def test_an_idle_connection_is_kept_two_minutes_not_httpx_default_five_seconds(servers, monkeypatch):
    # A tool's long run or a reply thought over leaves the connection idle for more than
    # httpx's default 5 s; it is still used. Past KEEP_ALIVE_S it is not (a NAT on the way may
    # have dropped it without a word). httpcore reads the time from time.monotonic.
    server = servers(serve_keep_alive(_echo))
    shift = [0.0]
    real = time.monotonic
    monkeypatch.setattr(time, "monotonic", lambda: real() + shift[0])
    async with new_client(TIMEOUT) as client:
        await client.get(server.url)
        shift[0] += KEEP_ALIVE_S - 1
        await client.get(server.url)
        assert server.connections == 1
        shift[0] += KEEP_ALIVE_S + 1
        await client.get(server.url)
    assert server.connections == 2 and len(server.requests) == 3


async def test_a_kept_connection_the_server_closed_while_idle_is_not_used(servers, caplog):
    # httpcore sees the server's close before it reuses the connection: the request goes out
    # on a new one at once, and is never sent into the closed one (no re-send needed).
    caplog.set_level(logging.INFO, logger="rivulet.core.protocol.keep_alive")
    closed = threading.Event()

    def handler(conn, n):
        if conn.read_request() is not None:
            conn.send(response(f"connection {n}".encode()))  # kept alive, for all the client knows
        if n == 0:
            conn.sock.close()
            closed.set()
        else:
            serve_keep_alive(lambda *_: response(b"again"))(conn, n)

    server = servers(handler)
    async with new_client(TIMEOUT) as client:
        assert (await client.get(server.url)).text == "connection 0"
        assert await asyncio.to_thread(closed.wait, 30)
        assert (await client.get(server.url)).text == "connection 1"
    assert server.connections == 2 and len(server.requests) == 2
    assert "sending the request again" not in caplog.text


async def test_a_chunked_response_is_joined_and_its_connection_kept(servers):
    def handler(conn, n):
        while conn.read_request() is not None:
            conn.send(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n")
            for piece in (b"one ", b"two ", b"three"):
                conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
            conn.send(b"0\r\n\r\n")

    server = servers(handler)
    async with new_client(TIMEOUT) as client:
        assert (await client.get(server.url)).text == "one two three"
        assert (await client.get(server.url)).text == "one two three"
    assert server.connections == 1


async def test_a_body_of_unknown_length_is_sent_chunked(servers):
    server = servers(serve_keep_alive(_echo))

    async def pieces():
        for piece in (b"a" * 10, b"b" * 20_000, b"c"):
            yield piece

    async with new_client(TIMEOUT) as client:
        answer = await client.post(server.url, content=pieces())
    assert answer.json()["length"] == 20_011


async def test_connection_close_is_honoured_and_the_next_request_connects_again(servers):
    def handler(conn, n):
        if conn.read_request() is not None:
            conn.send(response(f"connection {n}".encode(), connection="close"))

    server = servers(handler)
    async with new_client(TIMEOUT) as client:
        assert (await client.get(server.url)).text == "connection 0"
        assert (await client.get(server.url)).text == "connection 1"
    assert server.connections == 2


async def test_a_body_cut_mid_way_is_a_protocol_error_and_a_retryable_stream_error(servers):
    events = simple_text_response("hi")

    def handler(conn, n):
        if conn.read_request() is not None:  # promises the whole stream, sends a third, hangs up
            conn.send(response(events, content_type="text/event-stream")[: len(events) // 3])

    server = servers(handler)
    async with new_client(TIMEOUT) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="peer closed connection"):
            await client.get(server.url)
    transport = SseTransport(settings(base_url=server.url + "/v1"))
    try:
        with pytest.raises(errors.StreamError, match="cut mid-response"):
            async with aclosing(transport.stream({"model": "m", "input": []})) as stream:
                await consume_response(stream)
    finally:
        await transport.aclose()


async def test_a_response_head_of_90_kb_is_read(servers):
    cookie = "c" * 90_000  # more than one read (64 KiB), past h11's own 16 KiB, within httpcore's 100 KiB
    # (past 100 KiB: test_keep_alive.py's test_a_200_kb_response_head_is_one_clear_error_not_retried)
    server = servers(serve_keep_alive(lambda *_: response(b"ok", set_cookie=cookie)))
    async with new_client(TIMEOUT) as client:
        answer = await client.get(server.url)
    assert answer.text == "ok" and len(answer.headers["set-cookie"]) == 90_000


async def test_a_connection_closed_before_any_answer(servers):
    server = servers(lambda conn, n: conn.read_request())
    async with new_client(TIMEOUT) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.get(server.url)


async def test_an_html_error_page_is_the_typed_server_error(servers):
    page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    server = servers(serve_keep_alive(lambda *_: response(page, status="502 Bad Gateway", content_type="text/html")))
    transport = SseTransport(settings(base_url=server.url + "/v1"))
    try:
        with pytest.raises(errors.ServerError) as raised:
            async with aclosing(transport.stream({"model": "m", "input": []})) as stream:
                await consume_response(stream)
    finally:
        await transport.aclose()
    assert raised.value.status == 502


async def test_a_server_that_never_answers_is_a_read_timeout(servers):
    def handler(conn, n):
        conn.read_request()
        conn.server.done.wait(60)  # silent until the test ends

    server = servers(handler)
    async with new_client(httpx.Timeout(30.0, read=0.2)) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.get(server.url)


async def test_a_refused_connection_is_a_connect_error():
    with socket.socket() as unused:  # bound, never listening: the connection is refused
        unused.bind(("127.0.0.1", 0))
        async with new_client(TIMEOUT) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"http://127.0.0.1:{unused.getsockname()[1]}/")


@pytest.fixture
def tls_server(tmp_path):
    made = self_signed_cert(tmp_path)
    if made is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = made
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    def handler(conn, n):
        try:
            conn.sock = context.wrap_socket(conn.sock, server_side=True)
        except (ssl.SSLError, OSError):  # the client refused our certificate
            return
        serve_keep_alive(lambda *_: response(b"secret"))(conn, n)

    server = RawServer(handler)
    yield server, cert
    server.close()


async def test_tls_verifies_the_server_as_httpx_does_and_keeps_the_connection(tls_server, monkeypatch):
    server, cert = tls_server
    url = f"https://127.0.0.1:{server.port}/"
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    async with new_client(TIMEOUT) as client:  # certifi's roots do not know our certificate
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await client.get(url)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # as httpx reads it
    async with new_client(TIMEOUT) as client:
        assert (await client.get(url)).text == "secret"
        assert (await client.get(url)).text == "secret"
    assert server.connections == 2  # one refused, then one kept alive for both requests


def test_many_requests_at_once_each_get_their_own_connection(servers):
    gate = threading.Barrier(3, timeout=60)

    def handler(conn, n):
        conn.read_request()
        gate.wait()  # all three are in flight at once before any is answered
        conn.send(response(b"ok"))

    server = servers(handler)

    async def three():
        async with new_client(TIMEOUT) as client:
            return [r.text for r in await asyncio.gather(*(client.get(server.url) for _ in range(3)))]

    assert asyncio.run(three()) == ["ok"] * 3
    assert server.connections == 3
