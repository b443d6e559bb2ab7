"""The one local HTTP server of the tests: a real socket on 127.0.0.1 at a port the system
picks, served from a daemon thread, that answers each request with what a function of
the test returns for it (a `Reply`: status, headers, and a body sent whole or as a stream
that may pause or stop where the test's generator does). The servers of tests/helpers and
the tests' own small servers are this server with their own `answer`.

What is not built on it, and why: tests/helpers/mock_api.py is no socket at all (httpx's
in-process transport); the raw listeners of the sandbox tests only need a port to reach
or not, no HTTP; rivulet's demo server is the app's own (app/demo_server.py).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, TypeVar
from urllib.parse import parse_qs, urlsplit

# accept() waits at most this long. After select() says a client is waiting it may be gone
# before accept() (an app quitting mid-connect): a blocking accept then keeps serve_forever,
# and so shutdown() at the test's end, waiting for ever (seen once in CI).
ACCEPT_WAIT = 1.0


@dataclass
class Request:
    n: int  # its place among the requests this server got, from 0
    method: str
    path: str  # as sent, with its query
    headers: Message  # (names in any case: `headers.get("api-key")`)
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body or b"{}")

    @property
    def route(self) -> str:
        """The path without its query."""
        return urlsplit(self.path).path

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.path).query)


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | Iterable[bytes] = b""  # bytes: sent whole; an iterable: each chunk as it comes
    # How the client knows where the body ends: "length" (bytes only: content-length),
    # "chunked" (an iterable's default: transfer-encoding, ended by an empty chunk), or
    # "close" (nothing: the body ends when the connection closes, as many SSE servers do,
    # so a stream the test stops looks to the client like a dropped connection).
    framing: Literal["length", "chunked", "close"] | None = None


def json_reply(status: int, obj: Any) -> Reply:
    return Reply(status, {"content-type": "application/json"}, json.dumps(obj).encode())


def sse_reply(body: bytes | Iterable[bytes], framing: Literal["length", "chunked", "close"] | None = None) -> Reply:
    return Reply(200, {"content-type": "text/event-stream"}, body, framing)


Answer = Callable[[Request], "Reply | None"]  # None: the method is not served (501)
Stub = TypeVar("Stub", bound="StubServer")


class _Handler(BaseHTTPRequestHandler):
    server: LocalServer

    def handle(self) -> None:
        self.protocol_version = self.server.protocol
        super().handle()

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        server = self.server
        with server.lock:
            request = Request(len(server.requests), self.command, self.path, self.headers, body)
            server.requests.append(request)
        reply = server.answer(request)
        if reply is None:
            self.send_error(501, f"Unsupported method ({self.command!r})")
            return
        try:
            self._send(reply)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client left: what it read is what the test looks at
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = _serve

    def _send(self, reply: Reply) -> None:
        whole = isinstance(reply.body, bytes)
        framing = reply.framing or ("length" if whole else "chunked")
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if framing == "length":
            assert isinstance(reply.body, bytes), "a length is only known for a whole body"
            self.send_header("content-length", str(len(reply.body)))
        elif framing == "chunked":
            self.send_header("transfer-encoding", "chunked")
        self.send_header("connection", "close")
        self.end_headers()
        for chunk in [reply.body] if isinstance(reply.body, bytes) else reply.body:
            if not chunk:
                continue
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if framing == "chunked" else chunk)
            self.wfile.flush()
            with self.server.lock:
                self.server.sent += len(chunk)
        if framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: Any) -> None:
        pass


class LocalServer(ThreadingHTTPServer):
    """`with LocalServer(answer) as server:` serves at `server.base_url` until the block
    ends; `requests` holds every request it got, `sent` the body bytes it wrote."""

    daemon_threads = True

    def __init__(self, answer: Answer, *, port: int = 0, protocol: str = "HTTP/1.1") -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.answer, self.protocol = answer, protocol
        self.lock = threading.Lock()
        self.requests: list[Request] = []
        self.sent = 0
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def server_activate(self) -> None:
        super().server_activate()
        self.socket.settimeout(ACCEPT_WAIT)

    def url(self, path: str = "/v1") -> str:
        return f"http://127.0.0.1:{self.server_port}{path}"

    @property
    def base_url(self) -> str:
        return self.url()

    def start(self) -> LocalServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class StubServer:
    """A server class of its own (its state, its API) on a `LocalServer`: it answers in
    `reply`, and is started and stopped as a context manager or with start()/stop()."""

    path = "/v1"  # what base_url ends with

    def __init__(self, protocol: str = "HTTP/1.1", port: int = 0) -> None:
        self.local = LocalServer(self.reply, port=port, protocol=protocol)

    def reply(self, request: Request) -> Reply | None:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return self.local.url(self.path)

    def start(self: Stub) -> Stub:
        self.local.start()
        return self

    def stop(self) -> None:
        self.local.stop()

    def __enter__(self: Stub) -> Stub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
