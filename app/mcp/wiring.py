"""The chat's side of its MCP servers (core/tools/mcp_wiring.py runs them): made from the
settings, started in the background once the engine is built, shown by `/mcp`.

A server that failed is one toast; a turn sent while they start waits for them in the
engine (Esc still interrupts it and gives the prompt back)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core.tools.mcp_wiring import McpWiring

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
    from rivulet.core.tools.mcp_client import McpTool

__all__ = ["McpWiring", "show_mcp", "start_for_app", "wiring_for_app"]


def wiring_for_app(app: CommandContext) -> McpWiring:
    """The app's servers; a bad table (the CLI checks it first) is a toast and no servers."""
    from rivulet.core.errors import ConfigError
    from rivulet.widgets.entries import MCP_SERVERS

    if app.settings is None:  # (the engine is built from settings: they are known by then)
        return McpWiring([])
    try:
        wiring = McpWiring.from_settings(app.settings)
        MCP_SERVERS.update(c.name for c in wiring.configs)  # titles of calls shown before a server is up
        return wiring
    except ConfigError as exc:
        app.notify(exc.message, severity="error", timeout=15)
        return McpWiring([])


def remember_tools(tools: list[McpTool]) -> None:
    """The servers' tools, for the titles of their calls in the transcript."""
    from rivulet.widgets.entries import remember_mcp_tool

    for tool in tools:
        remember_mcp_tool(tool.name, tool.server, tool.display)


def start_for_app(app: CommandContext) -> None:
    """Start the servers of `app.engine` in the background; toasts say how it went."""
    if app.engine is None:
        return
    app.engine.start(hint="more: ctrl+p, MCP servers", on_tools=remember_tools,
                     notify=lambda text, severity: app.notify(text, severity=severity, timeout=8))


def show_mcp(app: CommandContext) -> None:
    """`/mcp`: the servers' view (once: a second call while it is open does nothing)."""
    from rivulet.widgets.mcp_panel import McpScreen

    if app.mcp is None:  # a replay, or tools given from outside: no servers were made
        app.notify("No MCP servers in this chat (a replay has none)", severity="warning")
    elif not isinstance(app.screen, McpScreen):
        app.push_screen(McpScreen(app.mcp.status))
