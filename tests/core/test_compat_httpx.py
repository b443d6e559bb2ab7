"""Canary for core/compat/httpx.py: httpx still makes its transports through the two
private factories, so both the direct and a proxy's transport pass through ours."""

from __future__ import annotations

import inspect

import httpx
import pytest

from rivulet.core.compat.httpx import WrappingClient


class Marked(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.inner = inner


class Client(WrappingClient):
    def direct(self) -> httpx.AsyncBaseTransport:
        return Marked()

    def proxied(self, made: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return Marked(made)


def test_the_factories_take_the_options_they_are_given() -> None:
    assert "proxy" in inspect.signature(httpx.AsyncClient._init_proxy_transport).parameters
    for factory in (httpx.AsyncClient._init_transport, httpx.AsyncClient._init_proxy_transport):
        assert {"verify", "cert", "trust_env", "http1", "http2", "limits"} <= set(inspect.signature(factory).parameters)


async def test_direct_and_proxied_transports_pass_through_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    client = Client(trust_env=True)
    try:
        assert isinstance(client._transport, Marked) and client._transport.inner is None
        proxied = [t for t in client._mounts.values() if t is not None]
        assert proxied and all(isinstance(t, Marked) and isinstance(t.inner, httpx.AsyncHTTPTransport) for t in proxied)
    finally:
        await client.aclose()
