"""A local Responses server for the terminal tests: each request is answered with a
streamed message, at a chosen rate, that echoes the prompt. The answer's length and
speed come from the test, so follow-the-stream can be tested at 500 words/s."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rivulet.app.demo_server import _Script, _text


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        """`GET /v1/models`: the models a test set (none set: 404, as many servers do)."""
        models = self.server.models
        body = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in models]}
                          if models and self.path.rstrip("/").endswith("/models")
                          else {"error": {"message": "not found"}}).encode()
        self.send_response(200 if models else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        self.server.bodies.append(request)
        inputs = request.get("input") or []
        prompt = _text(inputs[-1]) if inputs else ""
        self.server.prompts.append(prompt)
        s = _Script()
        s.start()
        if self.server.reasoning:
            s.reasoning(self.server.reasoning)
        if self.server.calls:  # a function call the test queued answers this request
            s.call(*self.server.calls.pop(0))
        else:
            s.message(self.server.answer(prompt))
        s.finish(10)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        rate = self.server.words_per_second
        started, sent = time.monotonic(), 0
        try:
            for ev in s.events:
                self.wfile.write(f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n".encode())
                self.wfile.flush()
                if rate and ev["type"].endswith(".delta"):
                    sent += 1
                    ahead = sent / rate - (time.monotonic() - started)
                    if ahead > 0:
                        time.sleep(ahead)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True


def echo(prompt: str) -> str:
    return f"ECHO[{prompt}]END"


class StreamServer:
    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.prompts = []
        self._server.bodies = []  # every request body, as sent
        self._server.models = []  # what GET /models lists
        self._server.answer = echo
        self._server.words_per_second = 0
        self._server.reasoning = ""
        self._server.calls = []  # (name, JSON arguments): answered in turn, before the echo
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    @property
    def prompts(self) -> list[str]:
        return self._server.prompts

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return self._server.bodies

    def list_models(self, *models: str) -> None:
        self._server.models = list(models)

    def answer_with(self, make, words_per_second: int = 0, reasoning: str = "") -> None:
        """make(prompt) -> the answer's text; streamed one word per delta at this rate
        (0: as fast as it can), after a reasoning summary if one is given."""
        self._server.answer = make
        self._server.words_per_second = words_per_second
        self._server.reasoning = reasoning


    def call(self, name: str, arguments: dict[str, Any]) -> None:
        """Answer the next request with a call of `name` (then the echo again)."""
        self._server.calls.append((name, json.dumps(arguments)))

    def start(self) -> StreamServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def paragraphs(count: int, words: int = 8, tag: str = "P") -> str:
    """`count` numbered one-line paragraphs (P001 ...), then THE-END."""
    body = [f"{tag}{n:03d} " + " ".join(f"w{n}x{k}" for k in range(words - 1)) for n in range(1, count + 1)]
    return "\n\n".join(body + ["THE-END"])
