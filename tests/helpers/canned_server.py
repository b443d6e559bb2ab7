"""A real HTTP server on 127.0.0.1 that answers each `POST /responses` with the next
of a list of recorded SSE bodies (the last one again once they run out) and
`GET /models` with a given list: enough to run the real CLI against exactly the
stream a test needs (a reasoning-only answer, a llama.cpp model list)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        models = self.server.models
        found = models is not None and self.path.rstrip("/").endswith("/models")
        self._send(200 if found else 404, "application/json",
                   json.dumps({"object": "list", "data": models} if found else {"error": {"message": "not found"}})
                   .encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.server.requests.append(json.loads(self.rfile.read(length) or b"{}"))
        bodies = self.server.bodies
        body = bodies[min(len(self.server.requests), len(bodies)) - 1]
        self._send(200, "text/event-stream", body)

    def _send(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.send_header("connection", "close")
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    bodies: list[bytes]
    models: list[dict[str, Any]] | None
    requests: list[dict[str, Any]]


class CannedServer:
    def __init__(self, *bodies: bytes, models: list[dict[str, Any]] | None = None) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.bodies = list(bodies)
        self._server.models = models
        self._server.requests = []
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self._server.requests

    def __enter__(self) -> CannedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
