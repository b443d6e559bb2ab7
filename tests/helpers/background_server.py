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
from collections.abc import Callable, Iterator
from typing import Any

from helpers.local_server import Reply, Request, StubServer, json_reply, sse_reply
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

    def snapshot(self, server: _State) -> dict[str, Any]:
        if self.status == "cancelled":
            return {**self.final, "status": "cancelled", "output": []}
        if server.running:  # still making it: what a poll sees meanwhile
            return {"id": self.rid, "object": "response", "status": "in_progress", "output": [],
                    "background": self.background}
        return self.final


def _events(kept: _Kept, state: _State, after: int, cut: int | None, hold: int | None) -> Iterator[bytes]:
    """The kept events after `after`, as SSE; the connection drops after `cut`, waits at `hold`."""
    for ev in kept.events:
        if ev["sequence_number"] <= after:
            continue
        yield f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n".encode()
        if ev["sequence_number"] == cut:
            return  # the connection drops; the response runs on
        if ev["sequence_number"] == hold:
            state.held.set()
            state.released.wait(120)
            if kept.status == "cancelled":
                return


def _not_found(message: str) -> Reply:
    return json_reply(404, {"error": {"message": message, "type": "invalid_request_error"}})


class _State:
    """What the server keeps, and the faults the test sets."""

    def __init__(self) -> None:
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


class BackgroundServer(StubServer):
    def __init__(self) -> None:
        super().__init__()
        self.server = _State()

    def reply(self, request: Request) -> Reply:
        state, path, query = self.server, request.route, request.query
        body = json.loads(request.body) if request.body else {}
        with state.lock:
            state.requests.append((request.method, path, query, body))
        if request.method == "POST" and path.endswith("/cancel"):
            kept = state.kept.get(path.split("/")[-2])
            if kept is None:
                return _not_found("no such response")
            kept.status = "cancelled"
            state.released.set()
            return json_reply(200, kept.snapshot(state))
        if request.method == "POST":
            kept = _Kept(state.script(body), bool(body.get("background")))
            state.kept[kept.rid] = kept
            return sse_reply(_events(kept, state, -1, state.cut_after, state.hold_after), "close")
        rid = path.rstrip("/").split("/")[-1]
        kept = state.kept.get(rid)
        if kept is None or not state.resumable or not kept.background:
            return _not_found(f"Response with id '{rid}' not found.")
        if query.get("stream") == ["true"]:
            after = int((query.get("starting_after") or ["-1"])[0])
            cut, state.cut_again = state.cut_again, None  # once
            return sse_reply(_events(kept, state, after - state.overlap, cut, None), "close")
        return json_reply(200, kept.snapshot(state))

    def requests(self, method: str | None = None) -> list[tuple[str, str, dict[str, list[str]], dict[str, Any]]]:
        with self.server.lock:
            return [r for r in self.server.requests if method is None or r[0] == method]

    def release(self) -> None:
        self.server.released.set()

    def stop(self) -> None:
        self.server.released.set()
        super().stop()
