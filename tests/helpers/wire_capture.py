"""A whole run's wire, recorded and served again: every request a client made to a
server (method, path, JSON body) and the server's answer (status, content type, body
bytes), one exchange a line of a `.wire.jsonl` file.

`python tests/helpers/wire_capture.py LISTEN_PORT UPSTREAM_PORT OUT` records: a proxy on
127.0.0.1:LISTEN_PORT that passes each request to the real server and streams its answer
back as it comes, writing the exchange when it ends. Request headers are not kept (an
Authorization header never reaches the file).

`WireReplay(path)` serves a recording: a POST gets the answer recorded for the same
`input` (the chat's turns and the background probes run side by side, so their order is
not fixed), any other request the next answer recorded for its method and path; the
requests it got are kept for the test to read, each marked with whether it was found."""

from __future__ import annotations

import http.client
import json
import sys
import threading
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: helpers/ is found from tests/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers.local_server import Reply, Request, StubServer

KEPT_HEADERS = ("content-type", "accept", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version")


def _route(method: str, path: str) -> str:
    return f"{method} {path.split('?')[0].rstrip('/')}"


class WireRecorder(StubServer):
    """A proxy on 127.0.0.1:`port` to the server at `upstream` that writes each exchange to `out`."""

    def __init__(self, port: int, upstream: int, out: Path) -> None:
        super().__init__(port=port)
        self.upstream, self.out, self.lock = upstream, out, threading.Lock()

    def reply(self, request: Request) -> Reply:
        headers = {k: v for k, v in request.headers.items() if k.lower() in KEPT_HEADERS}
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream, timeout=600)
        upstream.request(request.method, request.path, body=request.body or None, headers=headers)
        answer = upstream.getresponse()
        kind = answer.getheader("content-type") or ""
        return Reply(answer.status, {"content-type": kind}, self._relay(request, answer, upstream, kind), "close")

    def _relay(self, request: Request, answer: http.client.HTTPResponse, upstream: http.client.HTTPConnection,
               kind: str) -> Iterator[bytes]:
        """The answer passed on as it comes, and the exchange written when it ends."""
        got = bytearray()
        while chunk := answer.read1(65536):
            got += chunk
            yield chunk
        upstream.close()
        try:
            recorded: Any = json.loads(request.body) if request.body else None
        except ValueError:
            recorded = request.body.decode(errors="replace")
        self.write({"method": request.method, "path": request.path, "request": recorded,
                    "status": answer.status, "content_type": kind, "body": got.decode()})

    def write(self, exchange: dict[str, Any]) -> None:
        with self.lock, self.out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(exchange, ensure_ascii=False) + "\n")


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _key(request: Any) -> str:
    return json.dumps(request.get("input") if isinstance(request, dict) else request, sort_keys=True)


class WireReplay(StubServer):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self.exchanges = load(path)
        queues: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for exchange in self.exchanges:
            queues[_route(exchange["method"], exchange["path"])].append(exchange)
        self.queues = dict(queues)
        self.requests: list[dict[str, Any]] = []  # each: its route, its JSON body, whether it was recorded
        self.lock = threading.Lock()

    def reply(self, request: Request) -> Reply:
        route = _route(request.method, request.path)
        body = json.loads(request.body or b"null") if request.method == "POST" else None
        with self.lock:
            queue = self.queues.get(route) or []
            same = [e for e in queue if body is None or _key(e["request"]) == _key(body)]
            recorded = same[0] if same else None
            if recorded is not None:
                queue.remove(recorded)
            self.requests.append({"route": route, "request": body, "found": recorded is not None})
        if recorded is None:
            return Reply(404, {"content-type": "application/json"}, b'{"error":{"message":"not in the recording"}}')
        return Reply(recorded["status"], {"content-type": recorded["content_type"]}, recorded["body"].encode())


if __name__ == "__main__":
    listen, upstream, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    WireRecorder(listen, upstream, out).local.serve_forever()
