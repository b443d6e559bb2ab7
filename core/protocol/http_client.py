"""The httpx client of rivulet's requests: httpx's API over our own HTTP/1.1 transport.

The default transport is `H11Transport` (h11_transport.py: asyncio streams and h11, no
httpcore or anyio to import at start), with its TLS context made at the first https
request. Everything else is httpx's own: proxies from the environment (HTTPS_PROXY,
HTTP_PROXY, ALL_PROXY, NO_PROXY) are mounted by httpx as its own proxy transports, so a
proxied request goes through httpcore exactly as before, and only then imports it.
Both, and a `base` transport given instead of H11Transport (httpx's own, in tests), go
under `KeepAliveResend` (keep_alive.py): a request on a kept-alive connection the server
had closed is sent again at once. A transport given by the caller (tests' MockTransport)
is used as it is. tests/core/protocol/test_http_client.py checks them.
"""

from __future__ import annotations

from typing import Any

import httpx

from rivulet.core.protocol.h11_transport import H11Transport
from rivulet.core.protocol.keep_alive import KeepAliveResend


class RivuletClient(httpx.AsyncClient):
    def __init__(self, timeout: httpx.Timeout, base: httpx.AsyncBaseTransport | None = None) -> None:
        self._base = base
        super().__init__(timeout=timeout)

    def _init_transport(self, **options: Any) -> httpx.AsyncBaseTransport:  # type: ignore[override]
        # httpx's hook for the default transport (called with keywords).
        given = options.get("transport")
        if given is not None:
            return given  # type: ignore[no-any-return]
        return KeepAliveResend(self._base or H11Transport(verify=options.get("verify", True),
                                                          cert=options.get("cert"),
                                                          trust_env=options.get("trust_env", True)))

    def _init_proxy_transport(self, proxy: httpx.Proxy, **options: Any) -> httpx.AsyncBaseTransport:  # type: ignore[override]
        return KeepAliveResend(super()._init_proxy_transport(proxy, **options))


def new_client(timeout: httpx.Timeout, base: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The client for rivulet's requests; `base`: the transport under it (default H11Transport)."""
    return RivuletClient(timeout=timeout, base=base)
