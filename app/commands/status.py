"""/status and /help: plain lines (built here; the front end sanitises them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from rivulet.app.commands.profile import server_lines
from rivulet.app.commands.responses_api import cost_lines
from rivulet.app.commands.services import HasEngine, HasStatus
from rivulet.core.tools.router import AgentTools
from rivulet.core.turn.usage import context_left, tokens_in_context

if TYPE_CHECKING:
    from rivulet.app.commands.slash import SlashCommand
    from rivulet.core.engine import Engine


class StatusNeeds(HasEngine, HasStatus, Protocol):
    pass


def status_lines(s: StatusNeeds) -> list[str]:
    engine = s.engine
    settings, conv, status = engine.settings, engine.conversation, s.status
    lines = [
        f"model          {settings.model}",
        f"effort         {settings.reasoning_effort or 'default (the server decides)'}",
        f"server         {settings.endpoint.safe}",
        f"transport      {engine.transport.name} (setting: {settings.transport})",
    ]
    lines += server_lines(settings)
    writer = engine.writer
    path = writer.path if writer is not None else None
    lines.append(f"session file   {path if path is not None else ('not written yet' if writer else 'off')}")
    usage = status.usage  # what the status line shows: the two never disagree
    window = status.window
    used = tokens_in_context(usage)
    left = context_left(usage, window)
    context = f"{used:,} of {window:,} tokens" if used is not None and window else \
        (f"window {window:,} tokens, nothing sent yet" if window else "window unknown (set context_window)")
    if left is not None:
        context += f", {left}% left"
    lines.append(f"tokens used    {status.total_tokens:,} this run")
    lines += cost_lines(engine)
    lines.append(f"context        {context}")
    lines.append(f"window from    {engine.windows.choose(settings).describe()}")
    lines.append(f"history        {len(conv.history.entries)} items, {len(conv.history.compactions)} compactions")
    tools = engine.tools
    if isinstance(tools, AgentTools):
        lines.append(f"approval       {settings.approval}")
        if tools.settings.shell:
            lines.append(f"sandbox        {tools.sandbox.describe().removeprefix('sandbox ')}")
        lines.append(f"workspace      {tools.workspace}")
    lines += _instructions(engine)
    lines += mcp_lines(engine)
    lines += protocol_lines(engine)
    return lines


def protocol_lines(engine: Engine) -> list[str]:
    """The protocol deviations this server's streams showed (this conversation's, and the
    stream-shape ones an earlier run showed once: core/server_notes.py)."""
    from rivulet.core.server_notes import SeenNotes

    rules = dict.fromkeys(d.rule for d in engine.conversation.deviations)
    rules.update(dict.fromkeys(sorted(SeenNotes(engine.settings.base_url).known)))
    if not rules:
        return []
    return [f"protocol notes {', '.join(rules)} (tolerated; the chat's inspector, ctrl+o, lists each)"]


def _instructions(engine: Engine) -> list[str]:
    project = engine.conversation.project
    if project is None or not (project.files or project.refused):
        return ["AGENTS.md      none"]
    out = []
    for n, f in enumerate(project.files):
        cut = f" (cut to {f.used:,})" if f.truncated else ""
        out.append(f"{'AGENTS.md' if n == 0 else '':15}{f.path} · {f.size:,} bytes{cut}")
    for refused in project.refused:  # a link out of the repository, /proc, a FIFO: named, not read
        out.append(f"{'AGENTS.md' if not out else '':15}refused: {refused}")
    return out


def mcp_lines(engine: Engine) -> list[str]:
    manager = engine.mcp.manager
    if manager is None:
        return []
    out = []
    for n, server in enumerate(manager.status()):
        state = server["state"] + (f": {server['error']}" if server.get("error") else "")
        out.append(f"{'MCP servers' if n == 0 else '':15}{server['name']} · {state} · {len(server['tools'])} tools")
    return out


def help_lines(commands: Sequence[SlashCommand], keys: str) -> list[str]:
    """Every slash command with its description; then `!cmd`, the escapes and the front end's keys."""
    lines = []
    for cmd in commands:
        if cmd.slash:
            name = f"/{cmd.slash}" + (f" [{cmd.arg}]" if cmd.arg else "")
            lines.append(f"{name:22} {cmd.help}")
    lines.append(f"{'!cmd':22} run cmd in the workspace; its output goes with your next message")
    lines.append(f"{'//text, !!text':22} send /text or !text as a message")
    lines.append(keys)
    return lines
