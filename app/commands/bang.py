"""`!cmd` in the chat's composer: run it in the workspace (the shell tool's sandbox), show
what it printed, and keep it for the next message's context. `!!text` sends `!text`.
(Plain mode prints the output as it comes: app/plain/commands.py.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.commands.results import Lines, Result, Say
from rivulet.core.prompts.shell_context import is_shell_command, run_user_command, status_of
from rivulet.core.tools.router import AgentTools

if TYPE_CHECKING:
    from rivulet.core.prompts.shell_context import ShellContext
    from rivulet.core.turn.tool_api import ToolRouter

SHOWN_LINES = 200  # of the output, in the transcript (the model gets the capped whole)


def bang_command(text: str) -> str | None:
    """The command of a `!cmd` line; None for anything else (`!!` is text)."""
    return text[1:].strip() if is_shell_command(text) else None


async def run_bang(tools: ToolRouter | None, context: ShellContext, command: str) -> Result:
    if not isinstance(tools, AgentTools):
        return Say("!cmd needs the agent's tools, which this chat does not have.", "warning")
    result = await run_user_command(tools, command)
    lines = result.output.rstrip("\n").splitlines()
    if len(lines) > SHOWN_LINES:
        lines = [*lines[:SHOWN_LINES], f"[… {len(lines) - SHOWN_LINES} more lines; the model gets them all]"]
    where = tools.sandbox.describe() if tools.sandbox.active else "no sandbox"
    context.add(command, result, tools.settings.shell_timeout)
    return Lines(lines, title=f"$ {command}  ({status_of(result, tools.settings.shell_timeout)}, {where}; "
                              "added to your next message)")
