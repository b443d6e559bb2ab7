"""The SSE transport's httpx client makes its TLS context at the first https request:
a plain-http run never pays for it, an https one verifies as httpx always did."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest
from helpers.local_server import LocalServer, Reply

from rivulet.core.protocol.http_client import LazyTlsTransport, new_client


def _context(transport: httpx.AsyncHTTPTransport) -> ssl.SSLContext:
    return transport._pool._ssl_context


async def test_plain_http_makes_no_tls_context_and_one_that_could_would_trust_nothing():
    server = LocalServer(lambda request: Reply(200, {}, b"ok")).start()
    client = new_client(httpx.Timeout(5.0))
    try:
        response = await client.get(server.url("/"))
        assert response.text == "ok"
        transport = client._transport
        assert isinstance(transport, LazyTlsTransport)
        assert transport.tls is None and transport.plain is not None
        plain = _context(transport.plain)
        assert plain.verify_mode == ssl.CERT_REQUIRED and plain.check_hostname
        assert plain.cert_store_stats()["x509_ca"] == 0  # fails closed, should it ever start TLS
    finally:
        await client.aclose()
        server.stop()


async def test_https_gets_httpx_default_verified_context():
    with socket.socket() as s:  # a port nobody listens on: the request fails after the transport is made
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = new_client(httpx.Timeout(5.0))
    try:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"https://127.0.0.1:{port}/")
        tls = _context(client._transport.tls)
        assert tls.verify_mode == ssl.CERT_REQUIRED and tls.check_hostname
        assert tls.cert_store_stats()["x509_ca"] > 50  # certifi's roots, as httpx loads them
    finally:
        await client.aclose()


def test_proxies_from_the_environment_still_apply(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    client = new_client(httpx.Timeout(5.0))
    assert client._transport_for_url(httpx.URL("https://api.example.com/v1")) is not client._transport
