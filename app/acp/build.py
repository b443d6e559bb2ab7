"""An editor session's engine, through the one assembly (core/assembly.py): the settings
the chat gets (config, profile, `-c`, flags), the editor's cwd as the workspace, the
client's MCP servers beside the configured ones (under the same approvals and sandbox),
approvals asked as `session/request_permission`, notes on stderr (stdout is the protocol's)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.app.acp.agent import RivuletAgent
    from rivulet.app.acp.session import AcpSession
    from rivulet.core.assembly import SessionPlan
    from rivulet.core.tools.mcp_config import McpServerConfig
    from rivulet.core.tools.router import ToolSettings

log = logging.getLogger("rivulet.acp")


async def build_session(agent: RivuletAgent, sid: str, cwd: str, servers: list[Any],
                        plan: Callable[[ToolSettings], SessionPlan], model: str | None) -> AcpSession:
    """ConfigError (a bad setting, no key, a cwd that is no directory), SessionError, OSError."""
    from rivulet.app.acp.permission import asker
    from rivulet.app.acp.session import AcpSession
    from rivulet.app.boot import settings_for
    from rivulet.core.assembly import FrontEnd, open_conversation, open_session, prepare
    from rivulet.core.errors import ConfigError
    from rivulet.core.tools.approval_event import Answering
    from rivulet.core.turn.bus import EventBus

    if not Path(cwd).is_absolute():
        raise ConfigError(f"cwd {cwd!r} is not an absolute path")
    args = argparse.Namespace(**{**vars(agent.args), "workspace": cwd})
    settings, demo = settings_for(args, headless=True)
    if model is not None and not args.model:
        settings.model = model  # a loaded session goes on with its own model
    ground = await asyncio.to_thread(prepare, settings, _say)
    assert ground.tool_settings is not None  # (prepare makes them)
    ground.tool_settings.plan_tool = True  # the editor draws the model's plan (ACP's `plan` updates)
    ground.mcp_servers = [*(ground.mcp_servers or []), *client_servers(servers)]
    ground.session, ground.writer = await asyncio.to_thread(open_session, settings, plan(ground.tool_settings))
    bus = EventBus()

    async def ask(tool_call: Any, options: Any) -> Any:
        client = agent.client
        if client is None:
            raise ConnectionError("no client")
        return await client.request_permission(session_id=sid, tool_call=tool_call, options=options)

    files = None
    if agent.files and agent.client is not None:
        from rivulet.app.acp.client_files import ClientFiles

        files = ClientFiles(agent.client, sid)
    front = FrontEnd(name="acp", bus=bus, asks=Answering(asker(ask, bus.drain)), notes=_note, servers=_note,
                     files=files)
    engine = open_conversation(ground, front)
    if ground.hooks is not None and ground.hooks.ignored:  # the workspace's own hooks, not trusted: said once
        _say(f"warning: {ground.hooks.ignored}")
    for refused in engine.conversation.project.refused:
        _say(f"warning: AGENTS.md: {refused}")

    async def send(update: Any) -> None:
        client = agent.client
        if client is not None:
            await client.session_update(sid, update)

    return AcpSession(sid, engine, ground.tool_settings.workspace, send, demo.stop if demo is not None else None,
                      terminal=agent.terminal_display)


def client_servers(servers: list[Any]) -> list[McpServerConfig]:
    """The editor's MCP servers (stdio and HTTP) as configured ones; an SSE one is left out, said."""
    from acp.schema import HttpMcpServer, McpServerStdio

    from rivulet.core.tools.mcp_config import McpServerConfig

    out = []
    for server in servers:
        if isinstance(server, McpServerStdio):
            out.append(McpServerConfig(name=server.name, command=server.command, args=tuple(server.args),
                                       env={e.name: e.value for e in server.env}))
        elif isinstance(server, HttpMcpServer):
            out.append(McpServerConfig(name=server.name, url=server.url,
                                       headers={h.name: h.value for h in server.headers}))
        else:
            _say(f"an MCP server of type {type(server).__name__}: only stdio and HTTP servers are supported; left out")
    return out


def _say(text: str) -> None:
    print(f"rivulet: {sanitize(text)}", file=sys.stderr, flush=True)


def _note(text: str, severity: str) -> None:
    _say(text if severity == "information" else f"{severity}: {text}")
