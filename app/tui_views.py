"""The chat's views and what its keys open: the history inspector, a raw item, the
export of the session, the turns' diffs, the last answer, the transcript in a pager, the
MCP servers, a status note said whole, and the user's alert."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import sanitize
from rivulet.core.terminal import notify

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp


def inspect(app: RivuletApp) -> None:
    from rivulet.widgets.inspector import InspectorScreen, RawItemScreen, compaction_rows, notes_for_inspector

    if app.conversation is None or isinstance(app.screen, (InspectorScreen, RawItemScreen)):
        return
    notes = notes_for_inspector(app.notes.protocol_notes, app.notes.server_errors)
    notes += compaction_rows(app.conversation.history.compactions, after=len(notes))
    app.push_screen(InspectorScreen(list(app.conversation.history.entries), notes))


def open_raw_item(app: RivuletApp, key: str) -> None:
    """Jump from a transcript entry to its raw committed item."""
    from rivulet.widgets.inspector import RawItemScreen

    if app.conversation is None:
        return
    for entry in app.conversation.history.entries:
        if entry.key == key:
            app.push_screen(RawItemScreen(entry))
            return


def export_session(app: RivuletApp, fmt: str) -> None:
    from rivulet.app.export import export_session as write_export

    writer = app.session_writer
    if writer is None or writer.path is None:
        app.notify("Nothing to export yet: the session has no message")
        return
    try:
        out = write_export(writer.path, fmt)
    except (OSError, RivuletError) as exc:
        app.notify(f"Export failed: {sanitize(str(exc))}", severity="error")
        return
    app.notify(f"Exported to {sanitize(str(out))}")


def last_answer(app: RivuletApp) -> str:
    from rivulet.app.copying import last_answer as answer_of

    return answer_of(app.conversation.history if app.conversation is not None else None)


def turn_diff(app: RivuletApp) -> None:
    from rivulet.app.commands.undo import show_turns
    from rivulet.widgets.dialogs import DiffScreen

    if isinstance(app.screen, DiffScreen):
        return
    app.run_worker(show_turns(app), group="command", exit_on_error=False)  # a list of turns (issue 26)


async def say_whole(app: RivuletApp, note: str) -> None:
    """A note the status line could only show cut (at a word) is said whole in the transcript."""
    from rivulet.app.commands.output import show_note

    await show_note(app, note)


def transcript_in_pager(app: RivuletApp) -> None:
    """ctrl+s: the conversation as plain text in $PAGER (app/transcript_out.py)."""
    from rivulet.app.transcript_out import open_in_pager

    open_in_pager(app)


def mcp_servers(app: RivuletApp) -> None:
    """/mcp: the servers' state, tools and errors."""
    from rivulet.app.mcp.wiring import show_mcp

    show_mcp(app)


def alert(app: RivuletApp, title: str, body: str) -> None:
    """Tell a user who is looking elsewhere (the terminal is not focused): the bell or a
    desktop notification, as configured. Model text in it is cleaned by `notify`."""
    driver = app._driver
    if app.app_focus or driver is None or app.is_headless or app.settings is None:
        return
    seq = notify.sequence(app.settings.notify, title, body, os.environ.get("TERM_PROGRAM", ""))
    if seq:
        driver.write(seq)


def clipboard_text(text: str) -> str:
    """Every copy through Textual (OSC 52: a selection, a text area, ours) without control
    characters: it is pasted into a shell (app/copying.py says how many)."""
    from rivulet.core.terminal.clipboard import clean_copy

    return clean_copy(text)[0]
