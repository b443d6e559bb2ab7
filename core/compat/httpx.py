"""httpx's private API, every use of it in rivulet (tested against httpx 0.28-0.29).

Canary: tests/core/test_compat_httpx.py.
"""

from __future__ import annotations

from typing import Any

import httpx


class WrappingClient(httpx.AsyncClient):
    """An AsyncClient whose transports (the direct one and each proxy's from the
    environment) pass through `direct` and `proxied`. httpx has no public way to wrap
    the transports it makes (a `transport=` given turns its proxies from the environment
    off), so its two private factories, `_init_transport` and `_init_proxy_transport`,
    are overridden: httpx calls each with the client's own options."""

    def direct(self) -> httpx.AsyncBaseTransport:
        """The transport of requests that go through no proxy."""
        raise NotImplementedError

    def proxied(self, made: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        """`made`, the transport httpx made for one proxy, as the client will use it."""
        return made

    def _init_transport(self, **options: Any) -> httpx.AsyncBaseTransport:  # type: ignore[override]
        return self.direct()

    def _init_proxy_transport(self, proxy: httpx.Proxy, **options: Any) -> httpx.AsyncBaseTransport:  # type: ignore[override]
        return self.proxied(super()._init_proxy_transport(proxy, **options))
