"""The MCP SDK's private API, every use of it in rivulet (tested against mcp 2.3).

Canary: tests/core/test_compat_mcp.py.
"""

from __future__ import annotations

from typing import Any


def mcp_http_client(headers: dict[str, str] | None) -> Any:
    """The httpx client the SDK itself makes for streamable HTTP (`mcp.shared._httpx_utils`,
    with the SDK's timeouts), with rivulet's headers. Imported on first use: exec
    without an MCP server never loads the SDK."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    return create_mcp_http_client(headers=headers)
