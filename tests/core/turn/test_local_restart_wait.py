"""A local server that dies and comes back (issue 42.7): it refuses connections for a while,
then answers `503 Loading model` as llama-server does while it loads the model, then
answers. rivulet waits for it (up to RESTART_WAIT seconds, the time left said with each
retry) instead of giving up after the usual few seconds. A fake clock: the wait is
virtual, the server and the connections real."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest
from helpers.mock_api import settings
from helpers.paths import REAL
from helpers.raw_http_server import RawServer, closes_after_one, response
from helpers.streams import simple_text_response

from rivulet.app.exec_signals import RetryLines
from rivulet.core.errors import ServerError, ServerUnreachable
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.turn.bus import EventBus, Retrying
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.retry_policy import RESTART_STEP, RESTART_WAIT, RetryPolicy

LOADING = (REAL / "llamacpp" / "llamacpp_503_loading_model.body.json").read_bytes()  # the real server's body
DOWN_FOR = 20.0  # virtual seconds: far past the usual retries (0.5 + 1 + 2 + 4 s), well within the wait


class Server(RawServer):
    """A RawServer on a port of the test's choosing (the same one after a restart)."""

    def __init__(self, handler, port: int) -> None:  # type: ignore[no-untyped-def]
        self.handler = handler
        self.lock = threading.Lock()
        self.connections = 0
        self.requests: list[str] = []
        self.listener = socket.create_server(("127.0.0.1", port))
        self.port = port
        self.done = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        """Killed: the port refuses connections at once (a shutdown wakes the blocked accept)."""
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        super().close()


def answering(loading: int):
    """llama-server after a start: `loading` answers of 503 Loading model, then the answer."""
    count = {"n": 0}

    def answer(line: str, headers: dict[str, str], raw: bytes) -> bytes:
        count["n"] += 1
        if count["n"] <= loading:
            return response(LOADING, status="503 Service Unavailable", content_type="application/json")
        return response(simple_text_response("back again"), content_type="text/event-stream")

    return closes_after_one(answer)


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return int(probe.getsockname()[1])


async def test_a_local_server_that_restarts_is_waited_for_with_the_time_left_said():
    port = free_port()
    first = Server(answering(0), port)
    s = settings(base_url=f"http://127.0.0.1:{port}/v1", max_retries=4)
    bus = EventBus()
    retries: list[Retrying] = []
    bus.subscribe(retries.append, Retrying)
    clock = {"now": 0.0}
    servers = [first]

    async def fake_sleep(seconds: float) -> None:
        clock["now"] += seconds
        if clock["now"] >= DOWN_FOR and len(servers) == 1:  # the server is back, loading its model
            servers.append(Server(answering(2), port))
        await asyncio.sleep(0)

    conv = Conversation(s, SseTransport(s), bus, sleep=fake_sleep)
    try:
        await conv.run_turn("hello")  # an answer: the server is known to be there
        first.close()  # killed: connections are refused from now on
        retries.clear()
        await conv.run_turn("again")
        await bus.drain()
    finally:
        for server in servers:
            server.close()
        await conv.transport.aclose()
    assert conv.history.entries[-1].item["content"][0]["text"] == "back again"
    waits = [r for r in retries if r.gives_up_in is not None]
    refused = [r for r in waits if isinstance(r.error, ServerUnreachable)]
    loading = [r for r in waits if isinstance(r.error, ServerError) and r.error.status == 503]
    assert refused and len(loading) == 2 and len(retries) > s.max_retries
    assert all(r.delay <= RESTART_STEP for r in waits)
    left = [r.gives_up_in for r in waits]
    assert left == sorted(left, reverse=True) and left[0] < RESTART_WAIT and left[-1] > 0  # a countdown
    assert DOWN_FOR <= clock["now"] < RESTART_WAIT


async def test_a_port_that_never_answered_gets_the_usual_retries_only():
    port = free_port()  # nobody listens: a typo, not a restart
    s = settings(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2)
    bus = EventBus()
    retries: list[Retrying] = []
    bus.subscribe(retries.append, Retrying)

    async def no_sleep(seconds: float) -> None:
        await asyncio.sleep(0)

    conv = Conversation(s, SseTransport(s), bus, sleep=no_sleep)
    try:
        with pytest.raises(ServerUnreachable):
            await conv.run_turn("hello")
        await bus.drain()
    finally:
        await conv.transport.aclose()
    assert [r.gives_up_in for r in retries] == [None, None]


def test_a_remote_server_or_no_retries_never_waits():
    remote = settings(base_url="https://example.com/v1")
    assert RetryPolicy.for_settings(remote).restart_wait == 0
    assert RetryPolicy.for_settings(settings(base_url="http://127.0.0.1:8080/v1", max_retries=0)).restart_wait == 0
    assert RetryPolicy.for_settings(settings(base_url="http://127.0.0.1:8080/v1")).restart_wait == RESTART_WAIT


def test_exec_says_the_time_left_while_it_waits(capsys):
    error = ServerUnreachable("connection to http://127.0.0.1:8080/v1 failed: All connection attempts failed")
    RetryLines()(Retrying(7, 4, 2.0, error, gives_up_in=41.0))
    RetryLines()(Retrying(1, 4, 0.5, error))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("rivulet: retrying in 2.0s (waiting for the local server to come back: 41s left): "
                        "stream_error: connection to http://127.0.0.1:8080/v1 failed: All connection attempts failed")
    assert lines[1].startswith("rivulet: retrying in 0.5s (1/4): stream_error:")


def test_plain_says_the_time_left_while_it_waits():
    import io

    from rivulet.app.plain.printer import PlainPrinter

    out = io.StringIO()
    error = ServerError("Loading model", status=503)
    PlainPrinter(out)(Retrying(6, 4, 2.0, error, gives_up_in=37.0))
    assert out.getvalue().strip() == ("retrying (waiting for the local server to come back: 37s left): "
                                      "server_error: Loading model")
