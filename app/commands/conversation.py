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
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rivulet.app.commands.model import refresh_model_status
from rivulet.app.commands.results import Choose, Lines, Option, Result, Say
from rivulet.app.commands.services import HasEngine, HasStatus, HasTranscript, HasTurns
from rivulet.core.assembly import NewSession, ResumeSession, open_session
from rivulet.core.config_sources import sessions_dir
from rivulet.core.errors import RivuletError
from rivulet.core.store.session import Session, find_session, list_sessions

if TYPE_CHECKING:
    from rivulet.core.turn.recorder import SessionFile

BUSY = Say("A turn is running: press Esc to interrupt it first.", "warning")


class ConversationNeeds(HasEngine, HasStatus, HasTurns, HasTranscript, Protocol):
    pass


async def replace_conversation(s: ConversationNeeds, session: Session | None, writer: SessionFile | None) -> None:
    """Hold `session` (None: a fresh conversation) from now on; the transcript starts over."""
    s.engine.resume(session, writer)  # the old session file is closed, complete
    await s.transcript.start_over()
    refresh_model_status(s)


async def new_conversation(s: ConversationNeeds, arg: str = "") -> Result:
    if s.turns.running():
        return BUSY
    writer = s.engine.writer
    old = writer.path if writer is not None else None
    _, new = open_session(s.engine.settings, NewSession() if writer is not None else None)
    await replace_conversation(s, None, new)
    from rivulet.app.command_name import command_name

    kept = f" The previous one is saved: {command_name()} resume {old.stem}" if old is not None else ""
    return Lines([f"New conversation.{kept}"])


def _here_first(sessions: list[Session]) -> list[Session]:
    here = os.getcwd()
    return [s for s in sessions if s.meta.cwd == here] + [s for s in sessions if s.meta.cwd != here]


def _current(s: ConversationNeeds) -> Path | None:
    return s.engine.writer.path if s.engine.writer is not None else None


async def resume(s: ConversationNeeds, arg: str = "") -> Result:
    from rivulet.app.picker import session_choice

    if s.turns.running():
        return BUSY
    current = _current(s)
    try:
        path = find_session(arg) if arg else None
        if not arg:
            sessions = [x for x in _here_first(list_sessions()) if x.meta.path != current]
            if not sessions:
                return Say(f"No other saved sessions in {sessions_dir()}")
            options = [Option(str(x.meta.path), *session_choice(x)) for x in sessions]
            return Choose("Resume which session?", options, partial(resume_path, s), search=partial(_hits, s))
    except (RivuletError, OSError) as exc:
        return _cannot(exc)
    return await resume_path(s, str(path)) if path is not None else None


async def resume_path(s: ConversationNeeds, picked: str) -> Result:
    path, current = Path(picked), _current(s)
    if current is not None and path.resolve() == current.resolve():
        return Say("That is this session")
    try:
        session, writer = open_session(s.engine.settings, ResumeSession(path))
    except (RivuletError, OSError) as exc:
        return _cannot(exc)
    assert session is not None  # (a resume always reads one)
    await replace_conversation(s, session, writer)
    await s.transcript.show_session(session)
    return None


async def _hits(s: ConversationNeeds, query: str) -> Result:
    """The picker's search field: the sessions whose text says it (the full-text index)."""
    from rivulet.app.commands.search import session_hits

    return await session_hits(s, query)


def _cannot(exc: Exception) -> Say:
    return Say(f"Cannot resume: {exc.message if isinstance(exc, RivuletError) else exc}", "error")


async def list_saved(s: object, arg: str = "") -> Result:
    from rivulet.app.picker import SESSION_HEADER, session_line

    here = os.getcwd()
    every = list_sessions()
    mine = [x for x in every if x.meta.cwd == here]
    shown = every if arg.strip() == "all" else mine
    lines = [SESSION_HEADER, *(session_line(x) for x in shown)] if shown else ["(none)"]
    if len(every) > len(mine) and arg.strip() != "all":
        lines.append(f"{len(every) - len(mine)} more from other directories: /sessions all")
    lines.append("/resume ID (or a unique prefix) opens one; /resume alone picks from a list.")
    where = "" if arg.strip() == "all" else f", started in {here}"
    return Lines(lines, title=f"Sessions in {sessions_dir()}{where}")


async def start_compaction(s: ConversationNeeds, arg: str = "") -> Result:
    if s.turns.running():
        return BUSY
    await s.turns.run_as_turn(partial(_compact, s))  # Esc interrupts it, and no prompt is sent while it runs
    return None


async def _compact(s: ConversationNeeds) -> Result:
    engine = s.engine
    conv = engine.conversation
    s.status.working("Compacting the conversation")
    before = len(conv.history.entries)
    try:
        done = await engine.compact()
    except RivuletError as exc:
        s.status.idle("Compaction failed: nothing changed")
        return Say(exc.message, "error")
    except asyncio.CancelledError:
        s.status.idle("Compaction interrupted: nothing changed")
        raise
    s.status.idle(f"Compacted {len(done.replaced)} items into {len(done.added)}",
                  forget_usage=True)  # unknown until the next response says
    how = "a summary by the model" if done.mode == "summary" else "the server's compaction"
    return Lines([f"Compacted {len(done.replaced)} of {before} items into {len(done.added)} ({how}); "
                  f"{len(engine.conversation.history.entries)} items are sent from now on.",
                  "What was replaced is listed in the history inspector (/inspect, ctrl+o)."])
