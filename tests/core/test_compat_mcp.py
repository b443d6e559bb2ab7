"""Canary for core/compat/mcp.py: the SDK's own HTTP client factory (its httpx, which
mcp 2.x vendors as `httpx2`), with our headers."""

from __future__ import annotations

from rivulet.core.compat.mcp import mcp_http_client


async def test_the_sdks_http_client_carries_the_headers_given() -> None:
    client = mcp_http_client({"Authorization": "Bearer t"})
    try:
        assert client.headers["Authorization"] == "Bearer t"
    finally:
        await client.aclose()
