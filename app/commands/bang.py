"""`!cmd` in the chat's composer: run it in the workspace (the shell tool's sandbox),
show what it printed in the transcript, and keep it for the next message's context.
`!!text` sends `!text`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core.prompts.shell_context import is_shell_command, run_user_command, status_of

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext

SHOWN_LINES = 200  # of the output, in the transcript (the model gets the capped whole)


def take_bang(app: CommandContext, text: str) -> str | None:
    """The composer sent `text`: a `!cmd` starts here (None comes back); anything else
    comes back to be sent (`!!` loses one `!`)."""
    if text.startswith("!!"):
        return text[1:]
    if not is_shell_command(text):
        return text
    app.run_worker(_run(app, text[1:].strip()), group="bang", exit_on_error=False)
    return None


async def _run(app: CommandContext, command: str) -> None:
    from rivulet.app.commands.output import show_note
    from rivulet.core.tools.router import AgentTools

    tools = app.tools
    if not isinstance(tools, AgentTools):
        app.notify("!cmd needs the agent's tools, which this chat does not have.", severity="warning")
        return
    result = await run_user_command(tools, command)
    lines = result.output.rstrip("\n").splitlines()
    if len(lines) > SHOWN_LINES:
        lines = [*lines[:SHOWN_LINES], f"[… {len(lines) - SHOWN_LINES} more lines; the model gets them all]"]
    where = tools.sandbox.describe() if tools.sandbox.active else "no sandbox"
    await show_note(app, lines, title=f"$ {command}  ({status_of(result, tools.settings.shell_timeout)}, {where}; "
                                      "added to your next message)")
    app.shell_context.add(command, result, tools.settings.shell_timeout)
