"""The chat's model list is asked after its first frame (issue 42, B): a local server whose
`GET /models` is slow never holds up the chat; the header and the status line switch to
the server's one model when its answer comes, and the next request names it."""

from __future__ import annotations

import json
import socket
import threading
from functools import partial

import pytest
from helpers.raw_http_server import Conn, RawServer, response
from helpers.streams import simple_text_response
from helpers.tui import until

from rivulet.app.boot import prepare
from rivulet.app.cli import build_parser
from rivulet.app.tui import RivuletApp
from rivulet.core.config_sources import DEFAULT_MODEL, peek
from rivulet.core.server_model import WHY
from rivulet.widgets.composer import Composer

pytestmark = pytest.mark.pilot

ONE = "qwen2.5-coder-1.5b-instruct-q4_k_m"


@pytest.fixture(autouse=True)
def _probes_on(monkeypatch, tmp_path):
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")  # (the suite turns it off)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))


class SlowModels:
    """llama-server's ways (one model listed, a connection closed after each answer), with
    a `GET /models` that waits until the test lets it answer."""

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        self.asked = threading.Event()
        self.answer_now = threading.Event()
        self.given_up = threading.Event()  # the client closed a /models request before its answer
        self.sent: list[dict] = []
        self.server = RawServer(self.serve)

    def serve(self, conn: Conn, n: int) -> None:
        request = conn.read_request()
        if request is None:
            return
        if request[0].startswith("GET") and "/models" in request[0]:
            self.asked.set()
            while not self.answer_now.wait(0.02):
                if peer_closed(conn.sock):
                    self.given_up.set()
                    return
        conn.send(self.answer(*request))
        conn.read_request()  # open without a word until the next request: then gone (closes_after_one)

    def answer(self, line: str, headers: dict[str, str], raw: bytes) -> bytes:
        if line.startswith("GET") and "/models" in line:
            listed = {"object": "list", "data": [{"id": i, "object": "model"} for i in self.ids]}
            return response(json.dumps(listed).encode(), content_type="application/json")
        if line.startswith("POST") and "/responses" in line:
            self.sent.append(json.loads(raw))
        return response(simple_text_response("hi"), content_type="text/event-stream")


def turn_requests(slow: SlowModels) -> list[dict]:
    """The user's turn's requests (not the background probe's)."""
    return [body for body in slow.sent if "zebra" in json.dumps(body.get("input"))]


def peer_closed(sock: socket.socket) -> bool:
    """The other end hung up (a read would see the end of the stream)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)


def chat_on(url: str, tmp_path) -> RivuletApp:
    args = build_parser().parse_args(["--base-url", url, "--workspace", str(tmp_path)])
    app = RivuletApp.booting(peek(base_url=url), partial(prepare, args), demo=False)
    app.remember_theme = False
    return app


async def test_the_chat_is_ready_before_a_slow_model_list_answers_then_takes_its_one_model(tmp_path):
    slow = SlowModels([ONE])
    app = chat_on(slow.server.url + "/v1", tmp_path)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            # The engine built, the composer shown and focused, while /models has not answered.
            await until(pilot, lambda: app.conversation is not None and slow.asked.is_set(),
                        "the chat to start and ask for the models")
            assert not slow.given_up.is_set()  # the one request still waits: nothing timed out before the chat
            assert app.query_one(Composer).display and app.focused is app.query_one(Composer)
            assert DEFAULT_MODEL in str(app.query_one("#banner").render())
            slow.answer_now.set()
            await until(pilot, lambda: ONE in str(app.query_one("#banner").render()), "the server's model in the header")
            assert app._status.model == ONE and app.settings is not None and app.settings.applied["model"] == WHY
            await pilot.press(*"zebra", "enter")
            await until(pilot, lambda: turn_requests(slow), "the turn's request")
            assert [body["model"] for body in turn_requests(slow)] == [ONE]
    finally:
        slow.answer_now.set()
        slow.server.close()


async def test_several_models_leave_the_default_and_say_so_once(tmp_path):
    slow = SlowModels(["a-model", "b-model"])
    slow.answer_now.set()
    app = chat_on(slow.server.url + "/v1", tmp_path)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: app.conversation is not None, "the chat to start")
            await until(pilot, lambda: any("2 models" in str(n.message) for n in app._notifications),
                        "the note about the server's models")
            said = [str(n.message) for n in app._notifications if "2 models" in str(n.message)]
            assert len(said) == 1 and "/model" in said[0]
            assert app.settings is not None and app.settings.model == DEFAULT_MODEL
    finally:
        slow.server.close()
