"""The client of rivulet's requests: httpx's own transport for every request, direct or
through a proxy from the environment, each under the keep-alive re-send (keep_alive.py).
Its behaviour on real sockets: test_http_transport.py, test_keep_alive.py."""

from __future__ import annotations

import socket
import ssl

import certifi
import httpx
import pytest
from helpers.raw_http_server import RawServer, response, serve_keep_alive

from rivulet.core.protocol.http_client import new_client
from rivulet.core.protocol.keep_alive import KeepAliveResend


async def test_every_request_goes_through_httpx_own_transport(monkeypatch):
    handled: list[str] = []
    original = httpx.AsyncHTTPTransport.handle_async_request

    async def spy(self, request):
        handled.append(str(request.url))
        return await original(self, request)

    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", spy)
    server = RawServer(serve_keep_alive(lambda *_: response(b"ok")))
    try:
        async with new_client(httpx.Timeout(30.0)) as client:
            assert (await client.get(f"{server.url}/v1/models")).text == "ok"
            assert isinstance(client._transport, KeepAliveResend)  # under the re-send
    finally:
        server.close()
    assert handled == [f"{server.url}/v1/models"]


async def test_plain_http_loads_no_certificates_and_https_loads_httpx_default_ones(monkeypatch):
    # Parsing certifi's roots costs ~20 ms of CPU: a run against a local server over plain
    # http never pays it; the first https request verifies as httpx does.
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    loaded: list[object] = []
    original = ssl.SSLContext.load_verify_locations

    def spy(self, cafile=None, capath=None, cadata=None):
        loaded.append(cafile)
        return original(self, cafile, capath, cadata)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", spy)
    server = RawServer(serve_keep_alive(lambda *_: response(b"ok")))
    try:
        async with new_client(httpx.Timeout(30.0)) as client:
            assert (await client.get(f"{server.url}/")).text == "ok"
            assert loaded == []
            with socket.socket() as unused:  # nobody listens: the request fails once the context is made
                unused.bind(("127.0.0.1", 0))
                with pytest.raises(httpx.ConnectError):
                    await client.get(f"https://127.0.0.1:{unused.getsockname()[1]}/")
    finally:
        server.close()
    assert loaded == [certifi.where()]


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
