"""A request that went out on a kept-alive connection the server had just closed is sent
again at once, on a new connection: not a failure, and not a retry.

A server may close an idle kept-alive connection whenever it likes (llama.cpp's
llama-server does after a streamed answer, without `Connection: close`). If it does
while the next request is being sent, that request fails before any byte of an answer,
and the server never saw it. The client cannot tell this from a server that fails
unless the connection was reused, so that is the rule: a request that may have gone out
on a pooled connection and failed with no answer (`_unanswered`) is sent again once, at
once; the failed connection is gone from the pool, so the second try connects anew.
It wraps every transport of the client (httpx's AsyncHTTPTransport and its proxy
transports: http_client.py), so every request has it: the turn's stream, background GET
and cancel, doctor's probes, /models (tests/core/protocol/test_keep_alive.py).

It also names one failure that would otherwise read as a cut stream: a response head
larger than httpcore reads (`HEAD_MAX`, h11's limit as httpcore sets it) is a
LimitExceeded, not retried.
"""

from __future__ import annotations

import logging

import httpx

from rivulet.core.config_sources import safe_url
from rivulet.core.errors import LimitExceeded

log = logging.getLogger(__name__)
HEAD_MAX = 100 * 1024  # the largest response head httpcore buffers (its h11 max_incomplete_event_size)
Origin = tuple[bytes, bytes, int | None]


class KeepAliveResend(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        # Origins whose last answer left its connection open: the next request may reuse it.
        self._kept: set[Origin] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        origin = (url.raw_scheme, url.raw_host, url.port)
        reused = origin in self._kept
        self._kept.discard(origin)  # taken from the pool (or none was there)
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TransportError as exc:
            if _head_too_large(exc):
                raise LimitExceeded(f"the server's response headers are larger than {HEAD_MAX // 1024} KB "
                                    f"({safe_url(str(url))}): not read") from None
            if not (reused and _unanswered(exc) and isinstance(request.stream, httpx.ByteStream)):
                raise
            log.info("%s closed a kept-alive connection before answering (%s): sending the request again",
                     safe_url(str(url)), type(exc).__name__)
            response = await self.inner.handle_async_request(request)
        if _keeps_alive(response):
            self._kept.add(origin)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _unanswered(exc: httpx.TransportError) -> bool:
    """Whether the request failed before any byte of an answer came: the server hung up
    (httpcore says "Server disconnected without sending a response"), reset the
    connection while it was read or written, or it was never made."""
    if isinstance(exc, httpx.RemoteProtocolError):
        return "without sending a response" in str(exc)
    return isinstance(exc, (httpx.ReadError, httpx.WriteError, httpx.ConnectError))


def _head_too_large(exc: httpx.TransportError) -> bool:
    return isinstance(exc, httpx.RemoteProtocolError) and "Receive buffer too long" in str(exc)  # h11's words


def _keeps_alive(response: httpx.Response) -> bool:
    return (response.extensions.get("http_version") != b"HTTP/1.0"
            and "close" not in response.headers.get("connection", "").lower())
