"""A kept-alive connection the server closed while the next request was being sent
(llama.cpp's llama-server closes after a streamed answer without `Connection: close`):
the request is sent again at once on a new connection, not retried with back-off. On
httpx's own transport (httpcore's pool) under the client, on real sockets. And a response
head larger than httpcore reads is one clear error, not "cut mid-response"."""

from __future__ import annotations

import json
from contextlib import aclosing

import httpx
import pytest
from helpers.mock_api import settings
from helpers.raw_http_server import Conn, RawServer, closes_after_one, response, serve_keep_alive
from helpers.streams import simple_text_response

from rivulet.core import errors
from rivulet.core.protocol.http_client import new_client
from rivulet.core.protocol.json_request import JsonRequestError, request_json
from rivulet.core.protocol.models import fetch_models
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.bus import EventBus, Retrying
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.state_machine import consume_response

TIMEOUT = httpx.Timeout(30.0)
MODELS = json.dumps({"data": [{"id": "m1"}]}).encode()
SSE = "text/event-stream"


@pytest.fixture
def servers():
    made: list[RawServer] = []

    def make(handler):
        made.append(RawServer(handler))
        return made[-1]

    yield make
    for server in made:
        server.close()


def sse_answer(*_):
    return response(simple_text_response("hi"), content_type=SSE)


@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
async def test_a_request_on_a_connection_the_server_closed_is_sent_again_on_a_new_one(servers, reset):
    server = servers(closes_after_one(lambda *_: response(b"ok"), reset))
    async with new_client(TIMEOUT) as client:
        for _ in range(3):
            assert (await client.post(server.url, json={"n": 1})).text == "ok"
    # Each request after the first went out on a connection the server dropped, then on a new one
    # (a reset one's request was never read).
    assert server.connections == 3 and len(server.requests) == (3 if reset else 5)


async def test_a_turn_of_two_sse_requests_has_no_retry(servers):
    # The turn's retry loop never hears of the closed connection: no "retrying", no back-off.
    server = servers(closes_after_one(sse_answer))
    bus = EventBus()
    retries: list[Retrying] = []
    bus.subscribe(retries.append, Retrying)
    s = settings(base_url=server.url + "/v1")
    transport = SseTransport(s, new_client(TIMEOUT))
    try:
        conv = Conversation(s, transport, bus)
        for prompt in ("one", "two", "three"):
            assert (await conv.run_turn(prompt)).last_message == "hi"
        await bus.drain()
    finally:
        await transport.aclose()
    assert retries == [] and server.connections == 3


async def test_background_get_and_cancel_and_model_listing_are_sent_again_too(servers):
    def answer(line, headers, body):
        if line.startswith("GET /v1/models"):
            return response(MODELS, content_type="application/json")
        return response(json.dumps({"id": "resp_1", "status": "completed"}).encode(), content_type="application/json")

    server = servers(closes_after_one(answer))
    s = settings(base_url=server.url + "/v1")
    transport = SseTransport(s, new_client(TIMEOUT))
    try:
        assert (await transport.retrieve("resp_1"))["status"] == "completed"
        assert (await transport.cancel("resp_1"))["status"] == "completed"
        assert (await transport.retrieve("resp_1"))["id"] == "resp_1"
    finally:
        await transport.aclose()
    async with new_client(TIMEOUT) as client:
        for _ in range(2):
            assert [m.id for m in await fetch_models(s, client)] == ["m1"]
            assert (await request_json(s, "GET", "models", what="its models", client=client))["data"]
    assert server.connections == 3 + 4


async def test_doctor_probes_over_one_transport_are_sent_again(servers):
    # The doctor's probes share one SseTransport: the second probe goes out on the first's connection.
    server = servers(closes_after_one(sse_answer))
    transport = SseTransport(settings(base_url=server.url + "/v1"), new_client(TIMEOUT))
    try:
        for _ in range(2):
            async with aclosing(transport.stream({"model": "m", "input": []})) as events:
                assert (await consume_response(events)).last_message == "hi"
    finally:
        await transport.aclose()
    assert server.connections == 2


async def test_a_fresh_connection_closed_before_an_answer_is_not_sent_again(servers):
    # Only a reused connection can have been closed by the server while idle: a new one
    # that is dropped unanswered is the server's failure, retried (with back-off) by the turn.
    server = servers(lambda conn, n: conn.read_request())
    async with new_client(TIMEOUT) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.get(server.url)
    assert server.connections == 1
    transport = SseTransport(settings(base_url=server.url + "/v1"), new_client(TIMEOUT))
    try:  # said as what it was: no answer at all, not an answer cut in the middle
        with pytest.raises(errors.StreamError, match="closed the connection without answering$") as raised:
            async with aclosing(transport.stream({"model": "m", "input": []})) as events:
                await consume_response(events)
    finally:
        await transport.aclose()
    assert raised.value.retryable and server.connections == 2


async def test_a_second_close_in_a_row_is_the_callers_to_retry(servers):
    # Sent again once: if the new connection is dropped unanswered too, the error stands.
    def handler(conn: Conn, n: int) -> None:
        if conn.read_request() is None:
            return
        if n == 0:
            conn.send(response(b"ok"))
            conn.read_request()

    server = servers(handler)
    async with new_client(TIMEOUT) as client:
        assert (await client.get(server.url)).text == "ok"
        with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
            await client.get(server.url)
    assert server.connections == 2


async def test_a_200_kb_response_head_is_one_clear_error_not_retried(servers):
    server = servers(serve_keep_alive(lambda *_: response(b"ok", set_cookie="c" * 200_000)))
    s = settings(base_url=server.url + "/v1", max_retries=3)
    transport = SseTransport(s, new_client(TIMEOUT))
    bus = EventBus()
    retries: list[Retrying] = []
    bus.subscribe(retries.append, Retrying)
    try:
        with pytest.raises(errors.LimitExceeded, match="the server's response headers are larger than 100 KB") as raised:
            await Conversation(s, transport, bus).run_turn("hi")
        await bus.drain()
    finally:
        await transport.aclose()
    assert not raised.value.retryable and retries == [] and len(server.requests) == 1
    assert "cut mid-response" not in raised.value.message
    async with new_client(TIMEOUT) as client:
        with pytest.raises(JsonRequestError, match="response headers are larger than 100 KB"):
            await request_json(s, "GET", "models", what="its models", client=client)
