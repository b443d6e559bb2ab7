"""A local Responses server for the terminal tests: each request is answered with a
streamed message, at a chosen rate, that echoes the prompt. The answer's length and
speed come from the test, so follow-the-stream can be tested at 500 words/s."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from helpers.local_server import Reply, Request, StubServer, json_reply, sse_reply

from rivulet.app.demo_server import _Script, _text


def echo(prompt: str) -> str:
    return f"ECHO[{prompt}]END"


def _paced(events: list[dict[str, Any]], words_per_second: int) -> Iterator[bytes]:
    """The events as SSE, each delta at most at the rate (0: as fast as it can)."""
    started, sent = time.monotonic(), 0
    for ev in events:
        yield f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n".encode()
        if words_per_second and ev["type"].endswith(".delta"):
            sent += 1
            ahead = sent / words_per_second - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)


class StreamServer(StubServer):
    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []
        self.bodies: list[dict[str, Any]] = []  # every request body, as sent
        self.models: list[str] = []  # what GET /models lists
        self.answer: Callable[[str], str] = echo
        self.words_per_second = 0
        self.reasoning = ""
        self.calls: list[tuple[str, str]] = []  # (name, JSON arguments): answered in turn, before the echo

    def reply(self, request: Request) -> Reply:
        if request.method == "GET":  # `GET /v1/models`: the models a test set (none set: 404, as many servers do)
            models = self.models
            return json_reply(200 if models else 404,
                              {"object": "list", "data": [{"id": m, "object": "model"} for m in models]}
                              if models and request.path.rstrip("/").endswith("/models")
                              else {"error": {"message": "not found"}})
        body = request.json()
        self.bodies.append(body)
        inputs = body.get("input") or []
        prompt = _text(inputs[-1]) if inputs else ""
        self.prompts.append(prompt)
        s = _Script()
        s.start()
        if self.reasoning:
            s.reasoning(self.reasoning)
        if self.calls:  # a function call the test queued answers this request
            s.call(*self.calls.pop(0))
        else:
            s.message(self.answer(prompt))
        s.finish(10)
        return sse_reply(_paced(s.events, self.words_per_second), "close")

    def list_models(self, *models: str) -> None:
        self.models = list(models)

    def answer_with(self, make: Callable[[str], str], words_per_second: int = 0, reasoning: str = "") -> None:
        """make(prompt) -> the answer's text; streamed one word per delta at this rate
        (0: as fast as it can), after a reasoning summary if one is given."""
        self.answer = make
        self.words_per_second = words_per_second
        self.reasoning = reasoning

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        """Answer the next request with a call of `name` (then the echo again)."""
        self.calls.append((name, json.dumps(arguments)))


def paragraphs(count: int, words: int = 8, tag: str = "P") -> str:
    """`count` numbered one-line paragraphs (P001 ...), then THE-END."""
    body = [f"{tag}{n:03d} " + " ".join(f"w{n}x{k}" for k in range(words - 1)) for n in range(1, count + 1)]
    return "\n\n".join(body + ["THE-END"])
