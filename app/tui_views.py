"""The chat's views and what its keys open: the history inspector, a raw item, the turns'
diffs, the last answer, the transcript in a pager, the MCP servers, a status note said
whole, and the user's alert."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rivulet.core.terminal import notify
from rivulet.widgets.compat.textual import driver as textual_driver

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
    subagent = app.subagents.entries(key, app.session)  # a subagent's pane: its items (issue 41)
    if subagent is not None:
        from rivulet.widgets.inspector import InspectorScreen

        if not isinstance(app.screen, InspectorScreen):
            app.push_screen(InspectorScreen(subagent[1], subagent=subagent[0]))
        return
    for entry in app.conversation.history.entries:
        if entry.key == key:
            app.push_screen(RawItemScreen(entry))
            return


def last_answer(app: RivuletApp) -> str:
    from rivulet.app.copying import last_answer as answer_of

    return answer_of(app.conversation.history if app.conversation is not None else None)


def turn_diff(app: RivuletApp) -> None:
    from rivulet.widgets.dialogs import DiffScreen

    if isinstance(app.screen, DiffScreen):
        return
    app.run_worker(_turns(app), group="command", exit_on_error=False)  # a list of turns (issue 26)


async def _turns(app: RivuletApp) -> None:
    from rivulet.app.tui_commands import show
    from rivulet.app.undo_views import show_turns

    await show(app, await show_turns(app.services, app, app.turn_status.turn_diff))


async def say_whole(app: RivuletApp, note: str) -> None:
    """A note the status line could only show cut (at a word) is said whole in the transcript."""
    from rivulet.app.commands.output import show_note

    await show_note(app.chat.transcript, note)


def transcript_in_pager(app: RivuletApp) -> None:
    """ctrl+s: the conversation as plain text in $PAGER (app/transcript_out.py)."""
    from rivulet.app.transcript_out import open_in_pager

    open_in_pager(app.conversation, app.notify, app.suspend)


def mcp_servers(app: RivuletApp) -> None:
    """/mcp: the servers' view (once: a second call while it is open does nothing)."""
    from rivulet.widgets.mcp_panel import McpScreen

    if app.mcp is None:  # a replay, or tools given from outside: no servers were made
        app.notify("No MCP servers in this chat (a replay has none)", severity="warning")
    elif not isinstance(app.screen, McpScreen):
        app.push_screen(McpScreen(app.mcp.status))


def alert(app: RivuletApp, title: str, body: str) -> None:
    """Tell a user who is looking elsewhere (the terminal is not focused): the bell or a
    desktop notification, as configured. Model text in it is cleaned by `notify`."""
    driver = textual_driver(app)
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
