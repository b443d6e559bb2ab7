"""Sending and interrupting: a submitted text becomes a slash command, a `!cmd` or a
turn run in a worker; Esc closes what is open, or stops the running turn."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from rivulet.core.errors import RivuletError

if TYPE_CHECKING:
    from textual.app import App

    from rivulet.app.tui import RivuletApp
    from rivulet.core.engine import Engine
    from rivulet.core.turn.attachments import Attachment
    from rivulet.widgets.composer import Composer


def submit(app: RivuletApp, message: Composer.Submitted) -> None:
    from rivulet.app.commands.bang import bang_command
    from rivulet.app.tui_commands import dispatch

    if app.conversation is None:  # still starting: the composer holds its keys until then
        return
    text = dispatch(app, message.text)  # a slash command runs here, also during a turn
    if text is None:
        return
    command = bang_command(text)
    if command is not None:  # `!cmd` runs here: its output goes with the next message
        app.run_worker(_bang(app, command), group="bang", exit_on_error=False)
        return
    text = text[1:] if text.startswith("!!") else text  # `!!text` sends `!text`
    if app.sending.running():
        app.queue.add(text, message.text)  # sent when the turn completes (app/handlers/queue.py)
        return
    app.sending.send(text, message.text)


async def _bang(app: RivuletApp, command: str) -> None:
    from rivulet.app.commands.bang import run_bang
    from rivulet.app.tui_commands import show

    await show(app, await run_bang(app.tools, app.shell_context, command))


async def run(app: RivuletApp, engine: Engine, prompt: str, attachments: list[Attachment]) -> None:
    """The turn, in the app's "turn" worker: what it does reaches the screen by the bus."""
    try:
        await engine.submit(prompt, attachments)
    except RivuletError:
        app.queue.failed = True  # published on the bus as ErrorOccurred; the handler shows it
    except asyncio.CancelledError:
        await interrupted(app)
        raise


def interrupt(app: RivuletApp) -> None:
    """Esc: the popup, the view on top, the search, a focused entry, the Keys panel; else
    the running turn; else (twice, on an empty composer) edit the last message."""
    from rivulet.widgets.entry_keys import FocusableEntry
    from rivulet.widgets.escape import close_top_screen
    from rivulet.widgets.line_select import LineSelect

    chat = app.chat
    if app.screen is app.screen_stack[0] and chat.composer.close_completion():
        return  # Esc closes the completion popup, and does nothing else
    # A picker, view or the palette: its own Esc closes it (typed for any App: ours returns None).
    if close_top_screen(cast("App[object]", app)):
        return
    if app.focused is chat.search:
        chat.search.action_close()
        return
    if isinstance(app.focused, (FocusableEntry, LineSelect)) or app.focused is app.queue.view:  # back to typing
        chat.composer.focus()
        return
    if app.screen.query("HelpPanel"):  # the palette's Keys panel
        app.action_hide_help_panel()
        return
    if app.turn_worker is not None and app.turn_worker.is_running:
        if app.conversation is not None:
            app.conversation.cancel_requested = True  # a background response is cancelled, not left
        app.turn_worker.cancel()
        return
    app.escape_to_edit()


async def interrupted(app: RivuletApp) -> None:
    """Esc: history keeps what was committed (the conversation decides whether the turn
    is undone, and says so with TurnInterrupted)."""
    from rivulet.widgets.dialogs import ApprovalScreen

    while isinstance(app.screen, ApprovalScreen):  # a question nobody needs answered now
        app.pop_screen()
    app.commits.stop_running()
    await app.subagents.stop_all("interrupted")  # (each folds, cancelled, if its end did not come)
    await app.live_panes.discard_all("interrupted")
    app.turn_status.interrupted()
