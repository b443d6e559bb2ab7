"""Plain mode's slash commands: the ones that make sense on lines (no pickers, no
views), `/init` and the user's saved prompts (as in the chat: a built-in's name becomes
`/prompts:NAME`), and `!cmd`. Each returns the text to send to the model, or None."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rivulet.app.commands.slash import Slash, parse, unknown_message
from rivulet.core.prompts.expand import expand
from rivulet.core.prompts.files import SavedPrompt, commands_for, load_prompts
from rivulet.core.prompts.init_prompt import init_prompt
from rivulet.core.prompts.shell_context import is_shell_command, run_user_command, status_of

if TYPE_CHECKING:
    from rivulet.app.plain.chat import PlainChat

QUIT = object()  # what /quit returns


@dataclass(frozen=True)
class PlainCommand:
    slash: str
    help: str
    arg: str | None
    run: Callable[[PlainChat, str], object]


def _help(chat: PlainChat, _: str) -> None:
    for cmd in chat.commands():
        name = f"/{cmd.slash}" + (f" [{cmd.arg}]" if cmd.arg else "")
        chat.printer.line(f"{name:22} {cmd.help}")
    chat.printer.line("!cmd                   run cmd in the workspace; its output goes with your next message")
    chat.printer.line("//text, !!text         send /text or !text as a message")
    chat.printer.line("Alt+Enter: new line · Up/Down: history · Ctrl-C: stop the turn · Ctrl-D: quit")


def _model(chat: PlainChat, arg: str) -> None:
    if arg:
        chat.engine.set_model(arg)
    chat.printer.line(f"model: {chat.settings.model}")


def _effort(chat: PlainChat, arg: str) -> None:
    from rivulet.app.commands.model import EFFORTS, MORE_EFFORTS

    if arg:
        if arg not in (*EFFORTS, *MORE_EFFORTS, "default"):
            chat.printer.line(f"unknown effort {arg!r}: {', '.join(EFFORTS)} or default", "yellow")
            return
        chat.engine.set_effort(None if arg == "default" else arg)
    chat.printer.line(f"reasoning effort: {chat.settings.reasoning_effort or 'default'}")


def _approval(chat: PlainChat, arg: str) -> None:
    from rivulet.app.cli import APPROVALS

    if arg:
        if arg not in APPROVALS:
            chat.printer.line(f"unknown policy {arg!r}: {', '.join(APPROVALS)}", "yellow")
            return
        chat.tools.approvals.policy = arg  # type: ignore[assignment]
    chat.printer.line(f"approval: {chat.tools.approvals.policy}")


def _status(chat: PlainChat, _: str) -> None:
    s = chat.settings
    writer = chat.writer
    session = writer.path.stem if writer is not None and writer.path is not None else "(not saved yet)"
    for line in (f"model: {s.model} · effort: {s.reasoning_effort or 'default'}",
                 f"server: {chat.server}", f"workspace: {chat.tools.workspace}",
                 f"approval: {chat.tools.approvals.policy} · {chat.tools.sandbox.describe()}",
                 f"session: {session}", f"turns: {chat.conversation.turns}"):
        chat.printer.line(line)


def _diff(chat: PlainChat, _: str) -> None:
    diff = chat.tools.turn_diff.unified()
    if not diff:
        chat.printer.line("the last turn changed no file")
    for row in diff.rstrip("\n").splitlines():
        chat.printer.line(row, "green" if row.startswith("+") else "red" if row.startswith("-") else None)


def _quit(chat: PlainChat, _: str) -> object:
    return QUIT


def _init(chat: PlainChat, _: str) -> str:
    return init_prompt(chat.tools.workspace)


def builtin_commands() -> list[PlainCommand]:
    return [
        PlainCommand("model", "show the model, or switch to NAME for the next requests", "NAME", _model),
        PlainCommand("effort", "show or set the reasoning effort (minimal, low, medium, high, default)", "LEVEL",
                     _effort),
        PlainCommand("approval", "show or set when tools ask (ask, auto-edit, auto, never-ask)", "POLICY", _approval),
        PlainCommand("status", "model, server, workspace, approval, sandbox, session", None, _status),
        PlainCommand("diff", "everything the last turn changed in the workspace", None, _diff),
        PlainCommand("init", "ask the model to write an AGENTS.md (a patch, approved as any other)", None, _init),
        PlainCommand("help", "every command", None, _help),
        PlainCommand("quit", "leave (the session is saved; Ctrl-D too)", None, _quit),
    ]


def saved_prompt_commands(chat: PlainChat) -> list[PlainCommand]:
    """The user's prompts; what was skipped or renamed is printed once, at the start."""
    found = load_prompts(chat.tools.workspace, chat.settings.prompts_dir)
    words, clashes = commands_for(found.prompts, {c.slash for c in builtin_commands()})
    for line in [*clashes, *found.skipped]:
        chat.printer.line(f"note: {line}", "yellow")

    def runner(prompt: SavedPrompt) -> Callable[[PlainChat, str], str]:
        return lambda _chat, arg: expand(prompt.body, arg)

    return [PlainCommand(word, f"{p.description or 'saved prompt'} ({p.label})", "ARGS", runner(p))
            for word, p in words.items()]


async def handle(chat: PlainChat, text: str) -> str | object | None:
    """What a line typed means: the text to send, QUIT, or None (done here)."""
    if text.startswith("!!"):
        return text[1:]
    if is_shell_command(text):
        await bang(chat, text[1:].strip())
        return None
    parsed = parse(text)
    if not isinstance(parsed, Slash):
        return text if parsed is None else parsed
    cmd = next((c for c in chat.commands() if c.slash == parsed.name), None)
    if cmd is None:
        chat.printer.line(unknown_message(parsed.name, chat.commands()), "yellow")
        return None
    if parsed.arg and cmd.arg is None:
        chat.printer.line(f"/{cmd.slash} takes no argument: nothing was run or sent", "yellow")
        return None
    return cmd.run(chat, parsed.arg)


async def bang(chat: PlainChat, command: str) -> None:
    """`!cmd`: run, its output printed as it comes, kept for the next message."""
    chat.printer.line(f"$ {command}", "bold")
    result = await run_user_command(chat.tools, command, on_output=lambda text: chat.printer.raw(text))
    chat.printer.end_raw()
    where = chat.tools.sandbox.describe() if chat.tools.sandbox.active else "no sandbox"
    chat.printer.line(f"({status_of(result, chat.tools.settings.shell_timeout)}, {where}; added to your next "
                      "message)", "dim")
    chat.context.add(command, result, chat.tools.settings.shell_timeout)
