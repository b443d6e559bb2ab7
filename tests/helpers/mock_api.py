"""A test's settings and an in-process Responses server (httpx's MockTransport) that
answers with given event-stream bodies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import httpx

from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport


def settings(**kw: Any) -> Settings:
    kw.setdefault("base_url", "http://test.invalid/v1")
    kw.setdefault("api_key", "sk-test-secret-key-123456")
    kw.setdefault("allow_insecure_http", True)  # test.invalid is a mock, not a network
    return Settings(**kw)


def sse_response(chunks: Iterable[bytes], status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return httpx.Response(status, headers={"content-type": "text/event-stream", **(headers or {})}, content=body())


def transport_for(handler: Callable[[httpx.Request], httpx.Response], **kw: Any) -> SseTransport:
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return SseTransport(settings(**kw), client)


def serving(*bodies: bytes | list[bytes], requests: list[httpx.Request] | None = None, **kw: Any) -> SseTransport:
    """A transport whose server answers the n-th request with the n-th body."""
    queue = list(bodies)

    def handler(request: httpx.Request) -> httpx.Response:
        if requests is not None:
            requests.append(request)
        body = queue.pop(0) if len(queue) > 1 else queue[0]
        return sse_response(body if isinstance(body, list) else [body])

    return transport_for(handler, **kw)
