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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def _route(method: str, path: str) -> str:
    return f"{method} {path.split('?')[0].rstrip('/')}"


class _Recorder(BaseHTTPRequestHandler):
    server: _RecordingServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._pass()

    def do_POST(self) -> None:
        self._pass()

    def _pass(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k: v for k, v in self.headers.items() if k.lower() in ("content-type", "accept", "upgrade",
                                                                           "connection", "sec-websocket-key",
                                                                           "sec-websocket-version")}
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream, timeout=600)
        upstream.request(self.command, self.path, body=body or None, headers=headers)
        answer = upstream.getresponse()
        self.send_response(answer.status)
        kind = answer.getheader("content-type") or ""
        self.send_header("content-type", kind)
        self.send_header("connection", "close")
        self.end_headers()
        got = bytearray()
        while chunk := answer.read1(65536):
            got += chunk
            self.wfile.write(chunk)
            self.wfile.flush()
        upstream.close()
        self.close_connection = True
        try:
            request: Any = json.loads(body) if body else None
        except ValueError:
            request = body.decode(errors="replace")
        self.server.write({"method": self.command, "path": self.path, "request": request,
                           "status": answer.status, "content_type": kind, "body": got.decode()})

    def log_message(self, *args: Any) -> None:
        pass


class _RecordingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, upstream: int, out: Path) -> None:
        super().__init__(("127.0.0.1", port), _Recorder)
        self.upstream, self.out, self.lock = upstream, out, threading.Lock()

    def write(self, exchange: dict[str, Any]) -> None:
        with self.lock, self.out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(exchange, ensure_ascii=False) + "\n")


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _key(request: Any) -> str:
    return json.dumps(request.get("input") if isinstance(request, dict) else request, sort_keys=True)


class _Replayer(BaseHTTPRequestHandler):
    server: _ReplayServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._answer(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self._answer(json.loads(self.rfile.read(length) or b"null"))

    def _answer(self, request: Any) -> None:
        route = _route(self.command, self.path)
        with self.server.lock:
            queue = self.server.queues.get(route) or []
            same = [e for e in queue if request is None or _key(e["request"]) == _key(request)]
            recorded = same[0] if same else None
            if recorded is not None:
                queue.remove(recorded)
            self.server.requests.append({"route": route, "request": request, "found": recorded is not None})
        if recorded is None:
            status, kind, data = 404, "application/json", b'{"error":{"message":"not in the recording"}}'
        else:
            status, kind, data = recorded["status"], recorded["content_type"], recorded["body"].encode()
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


class _ReplayServer(ThreadingHTTPServer):
    daemon_threads = True
    queues: dict[str, list[dict[str, Any]]]
    requests: list[dict[str, Any]]
    lock: threading.Lock


class WireReplay:
    def __init__(self, path: Path) -> None:
        self.exchanges = load(path)
        self._server = _ReplayServer(("127.0.0.1", 0), _Replayer)
        queues: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for exchange in self.exchanges:
            queues[_route(exchange["method"], exchange["path"])].append(exchange)
        self._server.queues, self._server.requests, self._server.lock = dict(queues), [], threading.Lock()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self._server.requests

    def __enter__(self) -> WireReplay:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()


if __name__ == "__main__":
    listen, upstream, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    _RecordingServer(listen, upstream, out).serve_forever()
