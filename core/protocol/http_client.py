"""The httpx client of the SSE transport, with its TLS set up at the first https request.

httpx builds its default transport's TLS context (certifi's ~140 root certificates
parsed) when the client is made: ~40 ms of every `exec` start, which a run against a
plain-http local server (llama.cpp, a proxy on loopback) never uses. `LazyTlsClient` is an
`httpx.AsyncClient` whose default transport is made per scheme on first use, from the
arguments httpx passes; everything else (proxies from the environment, limits, timeouts)
is httpx's own. tests/core/protocol/test_http_client.py checks the hook still works.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpx


class LazyTlsTransport(httpx.AsyncBaseTransport):
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options  # what httpx would have made its transport with
        self.tls: httpx.AsyncHTTPTransport | None = None
        self.plain: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme == "https":
            if self.tls is None:
                self.tls = httpx.AsyncHTTPTransport(**self.options)
            return await self.tls.handle_async_request(request)
        if self.plain is None:
            # Plain http never starts TLS on this transport. Should it ever, a context that
            # verifies against no roots at all refuses every certificate: it fails closed.
            self.plain = httpx.AsyncHTTPTransport(**{**self.options,
                                                     "verify": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)})
        return await self.plain.handle_async_request(request)

    async def aclose(self) -> None:
        for transport in (self.tls, self.plain):
            if transport is not None:
                await transport.aclose()


class LazyTlsClient(httpx.AsyncClient):
    def _init_transport(self, **options: Any) -> httpx.AsyncBaseTransport:  # type: ignore[override]
        # httpx's hook for the default transport (called with keywords); a transport given
        # by the caller is used as it is.
        given = options.pop("transport", None)
        return given if given is not None else LazyTlsTransport(options)


def new_client(timeout: httpx.Timeout) -> httpx.AsyncClient:
    return LazyTlsClient(timeout=timeout)
