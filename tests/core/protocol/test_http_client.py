"""The client of rivulet's requests: httpx over our HTTP/1.1 transport, whose TLS context
is made at the first https request (a plain-http run never pays for it, an https one
verifies as httpx always did), with httpx's own proxies from the environment."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest
from helpers.raw_http_server import RawServer, response, serve_keep_alive

from rivulet.core.protocol.h11_transport import H11Transport
from rivulet.core.protocol.http_client import new_client
from rivulet.core.protocol.keep_alive import KeepAliveResend


async def test_plain_http_makes_no_tls_context():
    server = RawServer(serve_keep_alive(lambda *_: response(b"ok")))
    client = new_client(httpx.Timeout(30.0))
    try:
        assert (await client.get(f"{server.url}/")).text == "ok"
        transport = client._transport.inner  # under the keep-alive re-send (keep_alive.py)
        assert isinstance(transport, H11Transport) and transport.tls_context is None
    finally:
        await client.aclose()
        server.close()


async def test_https_gets_httpx_default_verified_context(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with socket.socket() as s:  # a port nobody listens on: the request fails after the context is made
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        client = new_client(httpx.Timeout(30.0))
        try:
            with pytest.raises(httpx.ConnectError):
                await client.get(f"https://127.0.0.1:{port}/")
            tls = client._transport.inner.tls_context
            assert tls is not None and tls.verify_mode == ssl.CERT_REQUIRED and tls.check_hostname
            assert tls.cert_store_stats()["x509_ca"] > 50  # certifi's roots, as httpx loads them
        finally:
            await client.aclose()


def test_proxies_from_the_environment_still_apply(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    client = new_client(httpx.Timeout(5.0))
    proxied = client._transport_for_url(httpx.URL("https://api.example.com/v1"))
    assert proxied is not client._transport
    # httpx's proxy transport, under the same re-send of a request on a closed kept-alive connection
    assert isinstance(proxied, KeepAliveResend) and isinstance(proxied.inner, httpx.AsyncHTTPTransport)


async def test_http_proxy_carries_the_request_and_no_proxy_bypasses_it(monkeypatch):
    # A forward proxy sees the absolute URL; the host is .invalid, so only the proxy can answer.
    proxy = RawServer(serve_keep_alive(lambda line, headers, body: response(f"proxied {line}".encode())))
    try:
        for name in ("ALL_PROXY", "HTTPS_PROXY", "NO_PROXY", "all_proxy", "https_proxy", "no_proxy", "http_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        async with new_client(httpx.Timeout(30.0)) as client:
            answer = await client.get("http://rivulet-proxy-test.invalid/v1/models")
        assert answer.text == "proxied GET http://rivulet-proxy-test.invalid/v1/models HTTP/1.1"
        monkeypatch.setenv("NO_PROXY", "rivulet-proxy-test.invalid")
        async with new_client(httpx.Timeout(30.0)) as client:
            with pytest.raises(httpx.ConnectError):  # straight to a name that does not resolve
                await client.get("http://rivulet-proxy-test.invalid/v1/models")
        assert len(proxy.requests) == 1
    finally:
        proxy.close()
