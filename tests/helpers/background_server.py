"""A local Responses server with background mode, as the API documents it:

- `POST /v1/responses` with `background: true` streams the response's events (each with
  `sequence_number`, starting at `response.created` in status `queued`), and keeps them;
- `GET /v1/responses/{id}?stream=true&starting_after=N` streams the kept events after N;
- `GET /v1/responses/{id}` returns the response object as it stands;
- `POST /v1/responses/{id}/cancel` cancels it (status `cancelled`).

Faults come from the test: `cut_after` closes the POST's connection after the event of
that sequence number (the response itself goes on: it runs in the background);
`hold_after` makes the POST wait there until `release()` or a cancel; `resumable=False`
answers the GETs 404, as a server without background mode does; `overlap` starts a
resumed stream early, `cut_again` cuts it too. Every request is
recorded (`requests`: method, path, query, body) for the test to count.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rivulet.app.demo_server import _Script


def message_script(text: str) -> Callable[[dict[str, Any]], _Script]:
    """A response that answers every request with `text`, one word per delta."""

    def make(_request: dict[str, Any]) -> _Script:
        s = _Script()
        s.start()
        s.message(text)
        s.finish(10)
        return s

    return make


class _Kept:
    """One response the server made: all its events, made at once, streamed as asked."""

    def __init__(self, script: _Script, background: bool) -> None:
        self.rid = script.rid
        self.events = script.events
        self.background = background
        self.status = "queued" if background else "in_progress"
        for ev in self.events[:1]:  # a background response starts queued, and says so
            if ev["type"] == "response.created":
                ev["response"] = {**ev["response"], "status": "queued", "background": background}
        self.final = self.events[-1]["response"]

    def snapshot(self, server: _Server) -> dict[str, Any]:
        if self.status == "cancelled":
            return {**self.final, "status": "cancelled", "output": []}
        if server.running:  # still making it: what a poll sees meanwhile
            return {"id": self.rid, "object": "response", "status": "in_progress", "output": [],
                    "background": self.background}
        return self.final


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def _record(self) -> tuple[str, dict[str, list[str]], dict[str, Any]]:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        body = json.loads(raw) if raw else {}
        with self.server.lock:
            self.server.requests.append((self.command, parts.path, query, body))
        return parts.path, query, body

    def do_POST(self) -> None:
        path, _query, body = self._record()
        if path.endswith("/cancel"):
            kept = self.server.kept.get(path.split("/")[-2])
            if kept is None:
                return self._json(404, {"error": {"message": "no such response", "type": "invalid_request_error"}})
            kept.status = "cancelled"
            self.server.released.set()
            return self._json(200, kept.snapshot(self.server))
        kept = _Kept(self.server.script(body), bool(body.get("background")))
        self.server.kept[kept.rid] = kept
        self._stream(kept, -1, self.server.cut_after, self.server.hold_after)

    def do_GET(self) -> None:
        path, query, _body = self._record()
        rid = path.rstrip("/").split("/")[-1]
        kept = self.server.kept.get(rid)
        if kept is None or not self.server.resumable or not kept.background:
            return self._json(404, {"error": {"message": f"Response with id '{rid}' not found.",
                                              "type": "invalid_request_error"}})
        if query.get("stream") == ["true"]:
            after = int((query.get("starting_after") or ["-1"])[0])
            cut, self.server.cut_again = self.server.cut_again, None  # once
            return self._stream(kept, after - self.server.overlap, cut, None)
        self._json(200, kept.snapshot(self.server))

    def _stream(self, kept: _Kept, after: int, cut: int | None, hold: int | None) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for ev in kept.events:
                if ev["sequence_number"] <= after:
                    continue
                self.wfile.write(f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n".encode())
                self.wfile.flush()
                if ev["sequence_number"] == cut:
                    break  # the connection drops; the response runs on
                if ev["sequence_number"] == hold:
                    self.server.held.set()
                    self.server.released.wait(120)
                    if kept.status == "cancelled":
                        break
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict[str, list[str]], dict[str, Any]]] = []
        self.kept: dict[str, _Kept] = {}
        self.script: Callable[[dict[str, Any]], _Script] = message_script("hello")
        self.cut_after: int | None = None
        self.hold_after: int | None = None
        self.resumable = True
        self.overlap = 0  # a resumed stream starts this many events too early (each must be shown once)
        self.cut_again: int | None = None  # the first resumed stream is cut too, after this sequence number
        self.running = False  # a poll sees the response unfinished while True
        self.held = threading.Event()
        self.released = threading.Event()


class BackgroundServer:
    def __init__(self) -> None:
        self._server = _Server()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    @property
    def server(self) -> _Server:
        return self._server

    def requests(self, method: str | None = None) -> list[tuple[str, str, dict[str, list[str]], dict[str, Any]]]:
        with self._server.lock:
            return [r for r in self._server.requests if method is None or r[0] == method]

    def release(self) -> None:
        self._server.released.set()

    def __enter__(self) -> BackgroundServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.released.set()
        self._server.shutdown()
        self._server.server_close()
