"""The chat's side of the one command layer (app/commands/): a `/word` sent from the composer,
or a palette entry, runs its command in a worker (the UI goes on; a picker can wait for
its answer), and the command's result is drawn the chat's way: lines as a note in the
transcript, a notice as a toast, a choice list as a picker, a confirmation as the undo
dialog, an action as what the App's binding for it does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.commands.output import show_note
from rivulet.app.commands.registry import slash_commands
from rivulet.app.commands.results import Choose, Confirm, Lines, Open, Quit, Result, Say, Send
from rivulet.app.commands.slash import Slash, find, parse, refusal

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from rivulet.app.commands.command import Command
    from rivulet.app.tui import RivuletApp


def dispatch(app: RivuletApp, text: str) -> str | None:
    """The composer sent `text`: run the command it names and return None, or return
    the text to send to the model."""
    parsed = parse(text)
    if not isinstance(parsed, Slash):
        return text if parsed is None else parsed
    commands = slash_commands(app.services)
    why = refusal(parsed, commands)
    cmd = find(commands, parsed.name)
    if why is not None or cmd is None:
        app.notify(why or "", severity="warning")
        app.chat.composer.restore(text)  # back, to be fixed
        return None
    start(app, cmd, parsed.arg)
    return None


def start(app: RivuletApp, cmd: Command, arg: str = "") -> None:
    """Commands run as workers: one that asks (a picker) or waits (the server) holds up nothing."""
    app.run_worker(run(app, cmd, arg), group="command", exit_on_error=False)


async def run(app: RivuletApp, cmd: Command, arg: str) -> None:
    await show(app, await cmd.run(app.services, arg))


async def show(app: RivuletApp, result: Result) -> None:
    """A command's result, drawn (in a worker: a picker waits for its answer)."""
    if isinstance(result, Lines):
        await show_note(app.chat.transcript, result.lines, result.title)
    elif isinstance(result, Say):
        app.notify(result.text, severity=result.severity, timeout=result.timeout)
    elif isinstance(result, Choose):
        await _choose(app, result)
    elif isinstance(result, Confirm):
        from rivulet.widgets.undo_dialog import UndoScreen

        answer = await app.push_screen_wait(UndoScreen(result.direction, result.lines, result.diff, result.conflicts))
        await show(app, await result.then(answer))
    elif isinstance(result, Send):
        send(app, result.text)
    elif isinstance(result, Open):
        _open(app, result)
    elif isinstance(result, Quit):
        app.exit()


async def _choose(app: RivuletApp, result: Choose) -> None:
    """A picker; with a search field when the command has a search (the sessions picker)."""
    from rivulet.widgets.choice import Choice, ChoiceScreen

    found: dict[str, tuple[Callable[[str], Awaitable[Result]], str]] = {}  # a search's pick -> its then, value

    async def search(query: str) -> list[Choice] | str:
        answer = await result.search(query) if result.search is not None else None
        if isinstance(answer, Say):
            return answer.text
        if not isinstance(answer, Choose):
            return "Nothing found"
        choices = []
        for option in answer.options:
            key = f"\0{len(found)}"  # (never a value of the list's own: those are text)
            found[key] = (answer.then, option.value)
            choices.append(Choice(key, option.label or option.value, option.help))
        return choices

    choices = [Choice(o.value, o.label, o.help) for o in result.options]
    picked = await app.push_screen_wait(ChoiceScreen(result.title, choices, current=result.current, note=result.note,
                                                     search=search if result.search is not None else None))
    if picked in found:
        then, value = found[picked]
        await show(app, await then(value))
    elif picked:
        await show(app, await result.then(picked))


def send(app: RivuletApp, text: str) -> None:
    """Send `text` as the user's message (what typing it would do)."""
    if app.services.turns.running():
        app.notify("A turn is running: press Esc to interrupt it first.", severity="warning")
        return
    app.chat.transcript.follow()
    app.run_turn(app.shell_context.take(text))


def _open(app: RivuletApp, action: Open) -> None:
    views = {"turn_diff": app.action_turn_diff, "transcript": app.action_transcript, "inspect": app.action_inspect,
             "mcp": app.action_mcp, "find": app.action_find, "raw_reasoning": app.action_toggle_raw_reasoning,
             "interrupt": app.action_interrupt}
    views[action.view]()
