"""The MCP servers of the chat and of `exec`: made from the settings, started in the
background when the conversation starts, waited for only by a turn, stopped on exit.

The UI never waits for a server: `start()` returns at once and the servers start
concurrently (each within its own startup timeout). A turn sent meanwhile waits for
them in the conversation's `before_turn` hook, where Esc still interrupts it and gives
the prompt back. A server that failed is one toast; `/mcp` shows its error and stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from rivulet.core.config import Settings
from rivulet.core.tools.mcp_client import McpManager
from rivulet.core.tools.mcp_config import McpServerConfig, parse_servers
from rivulet.core.turn.conversation import Conversation

Notify = Callable[[str, str], None]  # (message, severity)


class McpWiring:
    def __init__(self, configs: list[McpServerConfig]) -> None:
        self.configs = configs
        self.manager = McpManager(configs) if any(c.enabled for c in configs) else None
        self._start: asyncio.Task[None] | None = None
        self._notify: Notify | None = None
        self.started = asyncio.Event()  # set once every server is ready or failed

    @classmethod
    def from_settings(cls, settings: Settings) -> McpWiring:
        """Raises ConfigError (one line) for a bad `[mcp_servers]` table."""
        return cls(parse_servers(settings.mcp_servers))

    # ---- starting ----------------------------------------------------------------------

    def start(self, tools: Any, conversation: Conversation | None = None, notify: Notify | None = None,
              hint: str = "/mcp shows its stderr") -> None:
        """Start the servers in the background (`tools` is the AgentTools that offers their
        tools); a turn of `conversation` waits for them first."""
        if self.manager is None:
            self.started.set()
            return
        self._notify = notify
        self._start = asyncio.create_task(self._run_start(tools, notify, hint), name="mcp-start")
        if conversation is not None:
            conversation.before_turn = self._wait_first(conversation.before_turn)

    async def _run_start(self, tools: Any, notify: Notify | None, hint: str) -> None:
        from rivulet.widgets.entries import remember_mcp_tool

        assert self.manager is not None
        try:
            await tools.start_mcp()
        finally:
            self.started.set()
        for tool in self.manager.tools():
            remember_mcp_tool(tool.name, tool.server, tool.display)
        if notify is None:
            return
        # Failures only: a toast for every ready server would sit on an approval dialog's
        # buttons at 80x24; /mcp lists them.
        for server in self.manager.servers:
            if server.state == "failed":
                notify(f"MCP server {server.name} failed: {server.error} ({hint})", "error")

    def _wait_first(self, before: Callable[[Conversation], Awaitable[None]] | None
                    ) -> Callable[[Conversation], Awaitable[None]]:
        async def hook(conversation: Conversation) -> None:
            if not self.started.is_set() and self._notify is not None:
                self._notify("Waiting for the MCP servers to start (Esc gives your message back)", "information")
            await self.ready()
            if before is not None:
                await before(conversation)
        return hook

    async def ready(self) -> None:
        """Until every server is ready or failed (cancelling this leaves them starting)."""
        await self.started.wait()

    # ---- for /mcp and `mcp list` -----------------------------------------------------

    def status(self) -> list[dict[str, Any]]:
        """Every configured server in file order, a disabled one included."""
        live = {s["name"]: s for s in self.manager.status()} if self.manager is not None else {}
        out = []
        for config in self.configs:
            state = live.get(config.name) or {"name": config.name, "transport": config.transport, "where": "",
                                              "state": "disabled", "error": None, "tools": [], "stderr": ""}
            if state["state"] == "stopped" and not self.started.is_set():
                state = {**state, "state": "starting"}
            out.append(state)
        return out

    # ---- stopping --------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop every server (and the start, if it still runs): nothing survives rivulet."""
        if self._start is not None and not self._start.done():
            self._start.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._start
        if self.manager is not None:
            await self.manager.aclose()


# ---- the chat app's side (a few calls from app/tui.py) --------------------------------

def wiring_for_app(app: Any) -> McpWiring:
    """The app's servers; a bad table (the CLI checks it first) is a toast and no servers."""
    from rivulet.core.errors import ConfigError
    from rivulet.widgets.entries import MCP_SERVERS

    try:
        wiring = McpWiring.from_settings(app.settings)
        MCP_SERVERS.update(c.name for c in wiring.configs)  # titles of calls shown before a server is up
        return wiring
    except ConfigError as exc:
        app.notify(exc.message, severity="error", timeout=15)
        return McpWiring([])


def start_for_app(app: Any) -> None:
    """Start the servers of `app.mcp` for its tools and conversation; toasts say how it went."""
    app.mcp.start(app.tools, app.conversation, hint="more: ctrl+p, MCP servers",
                  notify=lambda text, severity: app.notify(text, severity=severity, timeout=8))


def show_mcp(app: Any) -> None:
    """`/mcp`: the servers' view (once: a second call while it is open does nothing)."""
    from rivulet.widgets.mcp_panel import McpScreen

    if not isinstance(app.screen, McpScreen):
        app.push_screen(McpScreen(app.mcp.status))
