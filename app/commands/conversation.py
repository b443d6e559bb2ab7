"""/new, /resume, /sessions and /compact: which conversation the chat holds, and
how much of it is sent.

/new and /resume replace the conversation (the settings, transport and tools stay;
the model and effort chosen with /model and /effort too); the old session file is
closed, complete, and can be resumed later. /compact runs core compaction
(core/turn/compaction.py) like a turn: Esc interrupts it, and nothing changes then.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rivulet.app.commands.model import refresh_model_status
from rivulet.app.commands.output import show_note
from rivulet.app.resume import rebuild_transcript
from rivulet.core.assembly import NewSession, ResumeSession, open_session
from rivulet.core.config_sources import sessions_dir
from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import Session, find_session, list_sessions
from rivulet.widgets.choice import Choice, ChoiceScreen

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
    from rivulet.core.turn.recorder import SessionFile


def busy(app: CommandContext) -> bool:
    """A turn (or a compaction) is running: say so, and do nothing."""
    worker = app.turn_worker
    if worker is not None and worker.is_running:
        app.notify("A turn is running: press Esc to interrupt it first.", severity="warning")
        return True
    return False


async def replace_conversation(app: CommandContext, session: Session | None, writer: SessionFile | None) -> None:
    """Hold `session` (None: a fresh conversation) from now on; the transcript starts over."""
    app.running.engine.resume(session, writer)  # the old session file is closed, complete
    app.turn_status.turn_diff = ""
    app.live.clear()
    await app.chat.transcript.remove_children()
    app.chat.status.set(total_tokens=0, usage=None, note=None, state="idle")
    refresh_model_status(app)


async def new_conversation(app: CommandContext, arg: str = "") -> None:
    if busy(app):
        return
    old = app.session_writer.path if app.session_writer is not None else None
    _, writer = open_session(app.running.settings, NewSession() if app.session_writer is not None else None)
    await replace_conversation(app, None, writer)
    from rivulet.app.command_name import command_name

    kept = f" The previous one is saved: {command_name()} resume {old.stem}" if old is not None else ""
    await show_note(app, f"New conversation.{kept}")


def _here_first(sessions: list[Session]) -> list[Session]:
    here = os.getcwd()
    return [s for s in sessions if s.meta.cwd == here] + [s for s in sessions if s.meta.cwd != here]


async def resume(app: CommandContext, arg: str = "") -> None:
    from rivulet.app.picker import SESSION_HEADER, session_line

    if busy(app):
        return
    current = app.session_writer.path if app.session_writer is not None else None
    try:
        if arg:
            path: Path | None = find_session(arg)
        else:
            sessions = [s for s in _here_first(list_sessions()) if s.meta.path != current]
            if not sessions:
                app.notify(f"No other saved sessions in {sanitize(str(sessions_dir()))}", markup=False)
                return
            choices = [Choice(str(s.meta.path), session_line(s)) for s in sessions]
            picked = await app.push_screen_wait(ChoiceScreen("Resume which session?", choices, note=SESSION_HEADER))
            path = Path(picked) if picked else None
        if path is None:
            return
        if current is not None and path.resolve() == current.resolve():
            app.notify("That is this session", markup=False)
            return
        session, writer = open_session(app.running.settings, ResumeSession(path))
    except (RivuletError, OSError) as exc:
        app.notify(f"Cannot resume: {sanitize(getattr(exc, 'message', str(exc)))}", severity="error", markup=False)
        return
    await replace_conversation(app, session, writer)
    await rebuild_transcript(app)


async def list_saved(app: CommandContext, arg: str = "") -> None:
    from rivulet.app.picker import SESSION_HEADER, session_line

    here = os.getcwd()
    every = list_sessions()
    mine = [s for s in every if s.meta.cwd == here]
    shown = every if arg.strip() == "all" else mine
    lines = [SESSION_HEADER, *(session_line(s) for s in shown)] if shown else ["(none)"]
    if len(every) > len(mine) and arg.strip() != "all":
        lines.append(f"{len(every) - len(mine)} more from other directories: /sessions all")
    lines.append("/resume ID (or a unique prefix) opens one; /resume alone picks from a list.")
    where = "" if arg.strip() == "all" else f", started in {here}"
    await show_note(app, lines, title=f"Sessions in {sessions_dir()}{where}")


def start_compaction(app: CommandContext, arg: str = "") -> None:
    if busy(app) or app.conversation is None:
        return
    # The turn's worker slot: Esc interrupts it, and no prompt is sent while it runs.
    app.turn_worker = app.run_worker(_compact(app), group="turn", exclusive=True, exit_on_error=False)


async def _compact(app: CommandContext) -> None:
    engine = app.running.engine
    conv = engine.conversation
    status = app.chat.status
    app.turn_status.started_at = time.monotonic()  # the 1 s tick shows the elapsed time
    status.set(state="working", elapsed=0, heading="Compacting the conversation", note=None)
    before = len(conv.history.entries)
    try:
        done = await engine.compact()
    except RivuletError as exc:
        status.set(state="idle", heading=None, note="Compaction failed: nothing changed")
        app.notify(sanitize(exc.message), severity="error", markup=False)
        return
    except asyncio.CancelledError:
        status.set(state="idle", heading=None, note="Compaction interrupted: nothing changed")
        raise
    note = f"Compacted {len(done.replaced)} items into {len(done.added)}"
    status.set(state="idle", heading=None, usage=None, note=note)  # usage: unknown until the next response says
    how = "a summary by the model" if done.mode == "summary" else "the server's compaction"
    await show_note(app, [f"Compacted {len(done.replaced)} of {before} items into {len(done.added)} ({how}); "
                          f"{len(conv.history.entries)} items are sent from now on.",
                          "What was replaced is listed in the history inspector (/inspect, ctrl+o)."])
