"""A real HTTP server on 127.0.0.1 that answers each `POST /responses` with the next
of a list of recorded SSE bodies (the last one again once they run out) and
`GET /models` with a given list: enough to run the real CLI against exactly the
stream a test needs (a reasoning-only answer, a llama.cpp model list)."""

from __future__ import annotations

from typing import Any

from helpers.local_server import Reply, Request, StubServer, json_reply, sse_reply


class CannedServer(StubServer):
    def __init__(self, *bodies: bytes, models: list[dict[str, Any]] | None = None) -> None:
        super().__init__()
        self.bodies, self.models = list(bodies), models
        self.requests: list[dict[str, Any]] = []  # each POST's JSON body

    def reply(self, request: Request) -> Reply:
        if request.method == "GET":
            if self.models is not None and request.path.rstrip("/").endswith("/models"):
                return json_reply(200, {"object": "list", "data": self.models})
            return json_reply(404, {"error": {"message": "not found"}})
        with self.local.lock:
            self.requests.append(request.json())
            body = self.bodies[min(len(self.requests), len(self.bodies)) - 1]
        return sse_reply(body, "length")
