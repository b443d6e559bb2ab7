"""The httpx client of rivulet's requests, on httpx's own transport (httpcore's pool).

Every request goes through `httpx.AsyncHTTPTransport`, configured here once:
- HTTP/1.1 only (the Responses stream needs nothing of HTTP/2, and h2 is not a dependency);
- TLS verified as httpx verifies (certifi's roots, or SSL_CERT_FILE / SSL_CERT_DIR), with
  one transport per scheme made at its first request: a run against a local server over
  plain http never parses certifi's roots (~20 ms of CPU at every start);
- an idle connection is kept `KEEP_ALIVE_S` (httpx's default is 5 s): a turn's follow-up
  after a tool ran, or the next message, reuses it instead of a new TLS handshake. httpcore
  drops a kept connection the server has closed before reusing it; one closed while the next
  request was going out is re-sent by `KeepAliveResend` (keep_alive.py), which wraps every
  transport of the client: the direct one and httpx's proxy transports;
- proxies from the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY), as httpx
  mounts them (trust_env).
A response head is limited by httpcore (100 KiB, keep_alive.HEAD_MAX); a body by byte_caps.py.
`base` replaces the AsyncHTTPTransport under the re-send (tests).

httpcore keeps a connection only when its response was read to the end; one closed before
(the SSE reader stops at response.completed) closes the connection, and every request of a
turn would pay a new one, a TLS handshake on a real API. `read_rest` reads what is left.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator

import httpx

from rivulet.core.compat.httpx import WrappingClient
from rivulet.core.errors import RivuletError
from rivulet.core.protocol.keep_alive import KeepAliveResend

# Longer than a tool's run or a reply typed, shorter than the idle timeouts of the NATs and
# load balancers in between (4-6 minutes at the least), which drop a connection silently.
KEEP_ALIVE_S = 120.0
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=KEEP_ALIVE_S)


class PerScheme(httpx.AsyncBaseTransport):
    """httpx's AsyncHTTPTransport for each scheme, made at the scheme's first request. The
    plain-http one never makes a TLS connection (proxies are transports of their own), so
    its context trusts nothing and loads no roots: were it ever used, it would refuse."""

    def __init__(self) -> None:
        self._made: dict[str, httpx.AsyncHTTPTransport] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        scheme = request.url.scheme
        transport = self._made.get(scheme)
        if transport is None:
            verify: ssl.SSLContext | bool = True if scheme == "https" else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            transport = self._made[scheme] = httpx.AsyncHTTPTransport(verify=verify, http1=True, http2=False,
                                                                      limits=LIMITS, trust_env=True)
        return await transport.handle_async_request(request)

    async def aclose(self) -> None:
        for transport in self._made.values():
            await transport.aclose()


class RivuletClient(WrappingClient):
    """httpx's client, its transports (direct and proxied) under the re-send."""

    def __init__(self, timeout: httpx.Timeout, base: httpx.AsyncBaseTransport | None) -> None:
        self._base = base
        super().__init__(timeout=timeout, limits=LIMITS, http1=True, http2=False, trust_env=True)

    def direct(self) -> httpx.AsyncBaseTransport:
        # (PerScheme gives its transports the client's own options)
        return KeepAliveResend(self._base or PerScheme())

    def proxied(self, made: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return KeepAliveResend(made)


def new_client(timeout: httpx.Timeout, base: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The client for rivulet's requests; `base`: the transport under the re-send (default
    httpx's AsyncHTTPTransport, configured as above)."""
    return RivuletClient(timeout, base)


# What a reader leaves after the event it stops at: the chunked framing's end, a `[DONE]`. A
# server that sends more, or holds the stream open, has its connection closed instead.
REST_MAX_BYTES = 64 * 1024
REST_MAX_S = 0.25


async def read_rest(pieces: AsyncIterator[bytes]) -> None:
    """Read the rest of a body the reader needs no more of (bounded, errors ignored: the
    answer is whole), so that httpcore puts its connection back in the pool."""
    read = 0
    try:
        async with asyncio.timeout(REST_MAX_S):
            async for piece in pieces:
                read += len(piece)
                if read > REST_MAX_BYTES:
                    return
    except (TimeoutError, httpx.HTTPError, RivuletError):
        return
