"""The tests' one HTTP server (tests/helpers/local_server.py): what each test server built
on it relies on: the request kept as sent, a body sent whole, chunked or until the
connection closes, a stream the client reads while the server still waits, a method not
served, and an accept() that never keeps shutdown() waiting."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator

from helpers.local_server import ACCEPT_WAIT, LocalServer, Reply, Request, json_reply

WAIT = 30  # seconds: a ceiling on a loaded machine, never a pace


def fetch(server: LocalServer, method: str = "GET", path: str = "/v1/x", body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[http.client.HTTPResponse, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=WAIT)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, data


def test_a_request_is_kept_as_sent_and_a_whole_body_has_its_length():
    with LocalServer(lambda request: json_reply(201, {"got": request.json(), "n": request.n})) as server:
        response, data = fetch(server, "POST", "/v1/responses?api-version=1", b'{"a": 1}', {"API-Key": "k"})
        again, _ = fetch(server)
    assert response.status == 201 and response.getheader("content-length") == str(len(data))
    assert json.loads(data) == {"got": {"a": 1}, "n": 0} and again.status == 201
    first, second = server.requests
    assert (first.method, first.route, first.query, first.headers.get("api-key")) == (
        "POST", "/v1/responses", {"api-version": ["1"]}, "k")
    assert (second.n, second.method, second.body) == (1, "GET", b"")
    assert server.base_url == f"http://127.0.0.1:{server.server_port}/v1"


def test_a_stream_is_chunked_or_ends_with_the_connection_and_its_bytes_are_counted():
    def reply(request: Request) -> Reply:
        framing = "chunked" if request.route.endswith("chunked") else "close"
        return Reply(200, {"content-type": "text/event-stream"}, iter([b"one ", b"", b"two"]), framing)

    with LocalServer(reply) as server:
        chunked, chunked_data = fetch(server, path="/chunked")
        closed, closed_data = fetch(server, path="/close")
    assert chunked.getheader("transfer-encoding") == "chunked" and chunked_data == b"one two"
    assert closed.getheader("transfer-encoding") is None and closed.getheader("content-length") is None
    assert closed_data == b"one two" and server.sent == 2 * len(b"one two")


def test_the_client_reads_a_stream_while_the_server_waits_and_a_cut_ends_it():
    go_on = threading.Event()

    def paused() -> Iterator[bytes]:
        yield b"first"
        go_on.wait(WAIT)
        yield b"second"  # and no more: the stream is cut here, the connection closes

    with LocalServer(lambda request: Reply(200, {}, paused(), "close")) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=WAIT)
        connection.request("GET", "/")
        response = connection.getresponse()
        first = response.read1(100)  # while the server waits
        go_on.set()
        rest = response.read()
        connection.close()
    assert first == b"first" and rest == b"second"


def test_a_method_the_answer_does_not_serve_is_a_501():
    with LocalServer(lambda request: None if request.method == "GET" else Reply(200, {}, b"posted")) as server:
        got, _ = fetch(server)
        posted, data = fetch(server, "POST", body=b"{}")
    assert got.status == 501 and (posted.status, data) == (200, b"posted")
    assert [r.method for r in server.requests] == ["GET", "POST"]


def test_an_accept_with_nobody_waiting_gives_up_and_shutdown_returns():
    server = LocalServer(lambda request: Reply(200, {}, b"ok"))
    assert server.socket.gettimeout() == ACCEPT_WAIT
    # What serve_forever does once select() said "readable", with the client already gone.
    handled = threading.Thread(target=server._handle_request_noblock, daemon=True)
    handled.start()
    handled.join(timeout=WAIT)  # a hang guard only: it returns after ACCEPT_WAIT
    assert not handled.is_alive()
    server.start()
    response, data = fetch(server)  # still serving
    assert (response.status, data) == (200, b"ok")
    stopped = threading.Thread(target=server.stop, daemon=True)
    stopped.start()
    stopped.join(timeout=WAIT)
    assert not stopped.is_alive()
