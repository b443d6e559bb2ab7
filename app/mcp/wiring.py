"""The chat's side of its MCP servers (core/tools/mcp_wiring.py runs them; the assembly
makes them, app/chat_front.py says where their notes go): their names and tools for the
transcript's titles (`/mcp`'s view: app/tui_views.py).

A server that failed is one toast; a turn sent while they start waits for them in the
engine (Esc still interrupts it and gives the prompt back)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core.tools.mcp_wiring import McpWiring

if TYPE_CHECKING:
    from rivulet.core.tools.mcp_client import McpTool
    from rivulet.core.tools.mcp_config import McpServerConfig

__all__ = ["McpWiring", "remember_servers", "remember_tools"]


def remember_servers(configs: list[McpServerConfig]) -> None:
    """The configured servers' names, for the titles of calls shown before a server is up."""
    from rivulet.widgets.entries import MCP_SERVERS

    MCP_SERVERS.update(c.name for c in configs)


def remember_tools(tools: list[McpTool]) -> None:
    """The servers' tools, for the titles of their calls in the transcript."""
    from rivulet.widgets.entries import remember_mcp_tool

    for tool in tools:
        remember_mcp_tool(tool.name, tool.server, tool.display)
