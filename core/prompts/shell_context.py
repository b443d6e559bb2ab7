"""`!cmd` in the composer: the user runs a command in the workspace, sandboxed as the
shell tool is (no approval: the user typed it), sees its output, and the next message
carries it as context, so the model knows what the user saw."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the chat imports this module before its first frame: nothing heavy at the top
    from collections.abc import Callable

    from rivulet.core.tools.router import AgentTools
    from rivulet.core.tools.shell import ShellResult

CONTEXT_CHARS = 16_000  # of one command's output kept for the model


def is_shell_command(text: str) -> bool:
    """`!cmd` (not `!` alone, and not `!!text`, which sends `!text`)."""
    return text.startswith("!") and not text.startswith("!!") and bool(text[1:].strip())


async def run_user_command(tools: AgentTools, command: str,
                           on_output: Callable[[str], None] | None = None) -> ShellResult:
    """The command in the workspace, in the shell tool's sandbox (its protected paths
    read-only), with the shell tool's time limit and output cap."""
    from rivulet.core.tools.shell import run_shell

    box = tools.sandbox if tools.sandbox.active else None
    guard = tools._protected_guard() if box is not None else None
    return await run_shell(command, tools.workspace, timeout=tools.settings.shell_timeout,
                           limit=min(tools.settings.output_limit, CONTEXT_CHARS), on_output=on_output,
                           secrets=tools.settings.secrets, sandbox=box,
                           read_only=guard.read_only() if guard is not None else None)


def status_of(result: ShellResult, timeout: float) -> str:
    return f"timed out after {timeout:g} s (killed)" if result.timed_out else f"exit code {result.exit_code}"


@dataclass
class ShellContext:
    """What `!cmd`s ran since the last message; taken (and emptied) by the next one."""

    blocks: list[str] = field(default_factory=list)

    def add(self, command: str, result: ShellResult, timeout: float) -> None:
        self.blocks.append(f"<user_shell_command>\n$ {command}\n({status_of(result, timeout)})\n"
                           f"{result.output.rstrip()}\n</user_shell_command>")

    def take(self, prompt: str) -> str:
        """The prompt with the commands' output before it."""
        if not self.blocks:
            return prompt
        blocks, self.blocks = self.blocks, []
        return ("The user ran these commands in the workspace; their output:\n" + "\n".join(blocks) +
                "\n\n" + prompt)
