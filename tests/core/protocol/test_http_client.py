"""The client of rivulet's requests: httpx's own transport for every request, direct or
through a proxy from the environment, each under the keep-alive re-send (keep_alive.py).
Its behaviour on real sockets: test_http_transport.py, test_keep_alive.py."""

from __future__ import annotations

import httpx
import pytest
from helpers.raw_http_server import RawServer, response, serve_keep_alive

from rivulet.core.protocol.http_client import new_client
from rivulet.core.protocol.keep_alive import KeepAliveResend


def test_every_request_goes_through_httpx_own_transport():
    client = new_client(httpx.Timeout(5.0))
    direct = client._transport_for_url(httpx.URL("https://api.example.com/v1"))
    assert isinstance(direct, KeepAliveResend) and type(direct.inner) is httpx.AsyncHTTPTransport


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
