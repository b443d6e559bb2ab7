"""A real local HTTP server for fault tests: each request is answered by a function of
the test (status, headers, and a body that may be endless), over a real socket, so the
client's reading is what is tested, not a mock's. It counts the bytes it wrote."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Iterable[bytes] = ()  # chunks, written with chunked transfer-encoding


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        srv = self.server
        with srv.lock:
            n = srv.requests
            srv.requests += 1
        answer = srv.answer(n, self.command, self.path)
        self.send_response(answer.status)
        for k, v in answer.headers.items():
            self.send_header(k, v)
        self.send_header("transfer-encoding", "chunked")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for chunk in answer.body:
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    with srv.lock:
                        srv.sent += len(chunk)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    answer: Callable[[int, str, str], Answer]
    requests: int = 0
    sent: int = 0


class FaultServer:
    """`answer(n, method, path) -> Answer` for the n-th request (from 0)."""

    def __init__(self, answer: Callable[[int, str, str], Answer]) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.answer = answer
        self._server.lock = threading.Lock()  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    @property
    def requests(self) -> int:
        return self._server.requests

    @property
    def sent(self) -> int:
        """Body bytes written so far (what the client could have read)."""
        return self._server.sent

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def endless(piece: bytes, limit: int = 1 << 40) -> Iterator[bytes]:
    """`piece` again and again (up to `limit` bytes: in practice, until the client leaves)."""
    sent = 0
    while sent < limit:
        yield piece
        sent += len(piece)


def gzip_bomb(inflated: int, piece: bytes = b"\0") -> Iterator[bytes]:
    """A gzip stream that inflates to `inflated` bytes of `piece`, compressed ~1000:1,
    made as it is sent (never held whole)."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = piece * (1024 * 1024 // len(piece))
    for _ in range(inflated // len(block)):
        out = z.compress(block)
        if out:
            yield out
    yield z.flush()
