"""A real HTTP server on 127.0.0.1 that authenticates the way Azure OpenAI does and no
other way: an `api-key` header, `api-version` in the query, and no `Authorization`
header at all (one is a 401, as a server that must never see a bearer token would
answer). It serves `POST /openai/responses` (a short SSE answer) and `GET /openai/models`."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from helpers.streams import simple_text_response


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def _refusal(self) -> tuple[int, str] | None:
        url = urlsplit(self.path)
        self.server.seen.append({"path": url.path, "query": parse_qs(url.query),
                                 "headers": {k.lower(): v for k, v in self.headers.items()}})
        if self.headers.get("authorization") is not None:
            return 401, "an Authorization header is not accepted here"
        if self.headers.get("api-key") != self.server.key:
            return 401, "missing or wrong api-key header"
        if parse_qs(url.query).get("api-version") != [self.server.version]:
            return 400, "missing or wrong api-version"
        return None

    def do_GET(self) -> None:
        refused = self._refusal()
        if refused is None and urlsplit(self.path).path == "/openai/models":
            self._send(200, "application/json", json.dumps({"object": "list", "data": [{"id": "dep-1"}]}).encode())
            return
        self._error(*(refused or (404, "not found")))

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        refused = self._refusal()
        if refused is None and urlsplit(self.path).path == "/openai/responses":
            self.server.bodies.append(json.loads(body or b"{}"))
            self._send(200, "text/event-stream", simple_text_response("hello from the deployment"))
            return
        self._error(*(refused or (404, "not found")))

    def _error(self, status: int, message: str) -> None:
        self._send(status, "application/json", json.dumps({"error": {"message": message, "code": str(status)}}).encode())

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
    key: str
    version: str
    seen: list[dict[str, Any]]
    bodies: list[dict[str, Any]]


class ApiKeyServer:
    def __init__(self, key: str, version: str) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.key, self._server.version = key, version
        self._server.seen, self._server.bodies = [], []
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/openai"

    @property
    def seen(self) -> list[dict[str, Any]]:
        return self._server.seen

    def __enter__(self) -> ApiKeyServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
