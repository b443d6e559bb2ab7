"""The MCP servers of one run (the chat or `exec`): made from the settings, started in the
background, waited for only by a turn, stopped on exit.

No front end waits for a server: `start()` returns at once and the servers start
concurrently (each within its own startup timeout). A turn sent meanwhile waits for
them (`wait_for_start`, which the engine puts first in the conversation's `before_turn`),
where an interrupt still gives the prompt back. A server that failed is one `notify`
call; `status()` lists every server with its error and stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rivulet.core.config import Settings
from rivulet.core.tools.router import AgentTools

if TYPE_CHECKING:  # imported with the first configured server: a run without one never needs them
    from rivulet.core.tools.mcp_client import McpManager, McpTool
    from rivulet.core.tools.mcp_config import McpServerConfig

Notify = Callable[[str, str], None]  # (message, severity)
OnTools = Callable[[list["McpTool"]], None]  # the servers' tools, once every server has started


class McpWiring:
    def __init__(self, configs: list[McpServerConfig]) -> None:
        self.configs = configs
        self.manager: McpManager | None = None
        if any(c.enabled for c in configs):
            from rivulet.core.tools.mcp_client import McpManager

            self.manager = McpManager(configs)
        self._start: asyncio.Task[None] | None = None
        self._notify: Notify | None = None
        self.started = asyncio.Event()  # set once every server is ready or failed
        if self.manager is None:
            self.started.set()  # none to start: a turn never waits

    @classmethod
    def from_settings(cls, settings: Settings) -> McpWiring:
        """Raises ConfigError (one line) for a bad `[mcp_servers]` table."""
        if not settings.mcp_servers:
            return cls([])
        from rivulet.core.tools.mcp_config import parse_servers

        return cls(parse_servers(settings.mcp_servers))

    # ---- starting ----------------------------------------------------------------------

    def start(self, tools: AgentTools | None, notify: Notify | None = None,
              hint: str = "/mcp shows its stderr", on_tools: OnTools | None = None) -> None:
        """Start the servers in the background (`tools` offers their tools)."""
        if self.manager is None or tools is None:
            self.started.set()
            return
        self._notify = notify
        self._start = asyncio.create_task(self._run_start(tools, notify, hint, on_tools), name="mcp-start")

    async def _run_start(self, tools: AgentTools, notify: Notify | None, hint: str, on_tools: OnTools | None) -> None:
        assert self.manager is not None
        try:
            await tools.start_mcp()
        finally:
            self.started.set()
        if on_tools is not None:
            on_tools(self.manager.tools())
        if notify is None:
            return
        # Failures only: a toast for every ready server would sit on an approval dialog's
        # buttons at 80x24; /mcp lists them.
        for server in self.manager.servers:
            if server.state == "failed":
                notify(f"MCP server {server.name} failed: {server.error} ({hint})", "error")

    async def wait_for_start(self) -> None:
        """A turn's first step: until every server is ready or failed, said once if it waits."""
        if not self.started.is_set() and self._notify is not None:
            self._notify("Waiting for the MCP servers to start (Esc gives your message back)", "information")
        await self.ready()

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
