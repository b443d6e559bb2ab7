"""A real HTTP server on 127.0.0.1 that authenticates the way Azure OpenAI does and no
other way: an `api-key` header, `api-version` in the query, and no `Authorization`
header at all (one is a 401, as a server that must never see a bearer token would
answer). It serves `POST /openai/responses` (a short SSE answer) and `GET /openai/models`."""

from __future__ import annotations

from typing import Any

from helpers.local_server import Reply, Request, StubServer, json_reply, sse_reply
from helpers.streams import simple_text_response


class ApiKeyServer(StubServer):
    path = "/openai"

    def __init__(self, key: str, version: str) -> None:
        super().__init__()
        self.key, self.version = key, version
        self.seen: list[dict[str, Any]] = []  # every request: path, query, headers (names lower-cased)
        self.bodies: list[dict[str, Any]] = []  # the JSON of each accepted POST

    def _refusal(self, request: Request) -> tuple[int, str] | None:
        self.seen.append({"path": request.route, "query": request.query,
                          "headers": {k.lower(): v for k, v in request.headers.items()}})
        if request.headers.get("authorization") is not None:
            return 401, "an Authorization header is not accepted here"
        if request.headers.get("api-key") != self.key:
            return 401, "missing or wrong api-key header"
        if request.query.get("api-version") != [self.version]:
            return 400, "missing or wrong api-version"
        return None

    def reply(self, request: Request) -> Reply:
        refused = self._refusal(request)
        if refused is None and request.method == "GET" and request.route == "/openai/models":
            return json_reply(200, {"object": "list", "data": [{"id": "dep-1"}]})
        if refused is None and request.method == "POST" and request.route == "/openai/responses":
            self.bodies.append(request.json())
            return sse_reply(simple_text_response("hello from the deployment"), "length")
        status, message = refused or (404, "not found")
        return json_reply(status, {"error": {"message": message, "code": str(status)}})
