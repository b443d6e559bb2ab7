"""/status and /help: plain lines for a transcript note (built here, shown by
commands.output.show_note, which sanitises them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rivulet.app.commands.profile import server_lines
from rivulet.app.commands.responses_api import cost_lines
from rivulet.core.tools.router import AgentTools
from rivulet.core.turn.usage import context_left, tokens_in_context

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext


def status_lines(app: CommandContext) -> list[str]:
    s = app.running.settings
    conv = app.conversation
    status = app.chat.status.line
    lines = [
        f"model          {s.model}",
        f"effort         {s.reasoning_effort or 'default (the server decides)'}",
        f"server         {s.endpoint.safe}",
        f"transport      {getattr(app.transport, 'name', '?')} (setting: {s.transport})",
    ]
    lines += server_lines(s)
    writer = app.session_writer
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
    lines += cost_lines(app)
    lines.append(f"context        {context}")
    if app.windows is not None:
        lines.append(f"window from    {app.windows.choose(s).describe()}")
    if conv is not None:
        lines.append(f"history        {len(conv.history.entries)} items, {len(conv.history.compactions)} compactions")
    tools = app.tools
    if isinstance(tools, AgentTools):
        lines.append(f"approval       {s.approval}")
        if tools.settings.shell:
            lines.append(f"sandbox        {tools.sandbox.describe().removeprefix('sandbox ')}")
        lines.append(f"workspace      {tools.workspace}")
    lines += _instructions(app)
    lines += _mcp(tools)
    return lines


def _instructions(app: CommandContext) -> list[str]:
    conv = app.conversation
    project = conv.project if conv is not None else None
    if project is None or not (project.files or project.refused):
        return ["AGENTS.md      none"]
    out = []
    for n, f in enumerate(project.files):
        cut = f" (cut to {f.used:,})" if f.truncated else ""
        out.append(f"{'AGENTS.md' if n == 0 else '':15}{f.path} · {f.size:,} bytes{cut}")
    for refused in project.refused:  # a link out of the repository, /proc, a FIFO: named, not read
        out.append(f"{'AGENTS.md' if not out else '':15}refused: {refused}")
    return out


def _mcp(tools: Any) -> list[str]:
    mcp = getattr(tools, "mcp", None)
    manager = getattr(mcp, "manager", None)
    if manager is None:
        return []
    out = []
    for n, server in enumerate(manager.status()):
        state = server["state"] + (f": {server['error']}" if server.get("error") else "")
        out.append(f"{'MCP servers' if n == 0 else '':15}{server['name']} · {state} · {len(server['tools'])} tools")
    return out


def help_lines(commands: list[Any]) -> list[str]:
    """Every slash command with its description (the palette lists them too, ctrl+p)."""
    lines = []
    for cmd in commands:
        if cmd.slash:
            name = f"/{cmd.slash}" + (f" [{cmd.arg}]" if cmd.arg else "")
            lines.append(f"{name:22} {cmd.help}")
    lines.append("//text                 send /text as a message")
    return lines
