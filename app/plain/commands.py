"""Plain mode's side of the one command layer (app/commands/): a `/word` runs its command of
the registry, the chat's commands, and the result is printed as lines: a notice is one
line, a choice list is numbered and asked on the terminal, the undo question shows its
diff and asks y/N, a view of the full-screen chat says so in one line. And `!cmd`, its
output printed as it comes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.commands.results import Choose, Confirm, Lines, Open, Quit, Result, Say, Send
from rivulet.app.commands.slash import Slash, find, parse, refusal
from rivulet.core.command_name import command_name
from rivulet.core.prompts.shell_context import is_shell_command, run_user_command, status_of

if TYPE_CHECKING:
    from rivulet.app.commands.command import Command
    from rivulet.app.plain.chat import PlainChat

QUIT = object()  # what /quit returns
FULL_SCREEN = "a view of the full-screen chat ({command} without --plain); here the conversation is this " \
              "terminal's scrollback"


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
    commands = chat.commands()
    why = refusal(parsed, commands)
    cmd = find(commands, parsed.name)
    if why is not None or cmd is None:
        chat.printer.line(why or "", "yellow")
        return None
    return await show(chat, await cmd.run(chat.services, parsed.arg), cmd)


async def show(chat: PlainChat, result: Result, cmd: Command | None = None) -> str | object | None:
    """A command's result as lines; the text to send, QUIT, or None."""
    printer = chat.printer
    if isinstance(result, Lines):
        if result.title:
            printer.line(result.title, "bold")
        for line in result.lines:
            printer.line(line)
    elif isinstance(result, Say):
        chat.services.notify(result.text, severity=result.severity)
    elif isinstance(result, Choose):
        return await _choose(chat, result, cmd)
    elif isinstance(result, Confirm):
        return await _confirm(chat, result)
    elif isinstance(result, Send):
        return result.text
    elif isinstance(result, Open):
        _open(chat, result, cmd)
    elif isinstance(result, Quit):
        return QUIT
    return None


async def _choose(chat: PlainChat, choose: Choose, cmd: Command | None) -> str | object | None:
    printer = chat.printer
    printer.line(choose.title, "bold")
    if choose.note:
        printer.line(f"   {choose.note}", "dim")
    for n, option in enumerate(choose.options, 1):
        now = "  (now)" if option.value == choose.current else ""
        about = f"  {option.help}" if option.help else ""
        printer.line(f"{n:>2} {option.label or option.value}{about}{now}")
    answer = await chat.ask("which (number, Enter: none)? ")
    if answer.isdigit() and 1 <= int(answer) <= len(choose.options):
        return await show(chat, await choose.then(choose.options[int(answer) - 1].value), cmd)
    if cmd is not None and cmd.slash:
        printer.line(f"nothing picked: /{cmd.slash} {cmd.arg or ''} picks one".replace("  ", " "), "dim")
    return None


async def _confirm(chat: PlainChat, confirm: Confirm) -> str | object | None:
    printer = chat.printer
    for line in confirm.lines:
        printer.line(line)
    _diff(chat, confirm.diff)
    more = ", o: overwrite your changes too" if confirm.conflicts else ""
    answer = (await chat.ask(f"{confirm.direction.capitalize()} this? [y/N{more}] ")).lower()
    picked = "yes" if answer in ("y", "yes") else "overwrite" if answer == "o" and confirm.conflicts else None
    return await show(chat, await confirm.then(picked))


def _diff(chat: PlainChat, diff: str) -> None:
    for row in diff.rstrip("\n").splitlines():
        chat.printer.line(row, "green" if row.startswith("+") else "red" if row.startswith("-") else None)


def _open(chat: PlainChat, action: Open, cmd: Command | None) -> None:
    if action.view == "turn_diff":
        diff = chat.tools.turn_diff.unified()
        if not diff:
            chat.printer.line("the last turn changed no file")
        _diff(chat, diff)
    elif action.view == "mcp":
        from rivulet.app.commands.status import mcp_lines

        for line in mcp_lines(chat.engine) or ["no MCP servers (the config's [mcp_servers] table)"]:
            chat.printer.line(line)
    else:
        name = f"/{cmd.slash}" if cmd is not None and cmd.slash else action.view
        chat.printer.line(f"{name}: {FULL_SCREEN.format(command=command_name())}", "yellow")


async def bang(chat: PlainChat, command: str) -> None:
    """`!cmd`: run, its output printed as it comes, kept for the next message."""
    chat.printer.line(f"$ {command}", "bold")
    result = await run_user_command(chat.tools, command, on_output=lambda text: chat.printer.raw(text))
    chat.printer.end_raw()
    where = chat.tools.sandbox.describe() if chat.tools.sandbox.active else "no sandbox"
    chat.printer.line(f"({status_of(result, chat.tools.settings.shell_timeout)}, {where}; added to your next "
                      "message)", "dim")
    chat.context.add(command, result, chat.tools.settings.shell_timeout)
