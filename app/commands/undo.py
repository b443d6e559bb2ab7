"""/undo and /redo: the checkpoints of core/checkpoints, asked about as a `Confirm` (the
chat's dialog is widgets/undo_dialog.py; plain mode asks on the terminal). The rewinds
that put files back (Esc Esc, the inspector's edit) and ctrl+t's list of turns are the
chat's views over the same restore (app/undo_views.py).

The plan and the restore read and write files: they run in a thread, the UI goes on.
Each restore is recorded in the session file.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Protocol

from rivulet.app.commands.conversation import BUSY
from rivulet.app.commands.results import Confirm, Result, Say
from rivulet.app.commands.services import HasEngine, HasTurns
from rivulet.core.checkpoints.actions import carry_out, describe, outcome, propose, without_checkpoint
from rivulet.core.checkpoints.restore import Plan, diff_text, no_checkpoint
from rivulet.core.checkpoints.turn_lock import RESTORING
from rivulet.core.errors import RivuletError
from rivulet.core.tools.router import AgentTools

if TYPE_CHECKING:
    from rivulet.core.checkpoints.turns import TurnCheckpoints
    from rivulet.core.engine import Engine


class UndoNeeds(HasEngine, HasTurns, Protocol):
    pass


def checkpoints_of(engine: Engine) -> TurnCheckpoints | None:
    tools = engine.tools  # (the agent's, or tools given: a test's)
    return tools.checkpoints if isinstance(tools, AgentTools) else None


async def undo(s: UndoNeeds, arg: str = "") -> Result:
    return await _ask_and_restore(s, "undo", int(arg) if arg.strip().isdigit() else 1)


async def redo(s: UndoNeeds, arg: str = "") -> Result:
    return await _ask_and_restore(s, "redo", int(arg) if arg.strip().isdigit() else 1)


async def _ask_and_restore(s: UndoNeeds, direction: str, turns: int) -> Result:
    if s.turns.running():
        return BUSY
    cps = checkpoints_of(s.engine)
    if cps is None:
        return Say("Checkpoints are off (checkpoints = false, or no tools): nothing to undo", "warning")
    await asyncio.to_thread(cps.wait)  # the last turn's checkpoint, if it is still being written
    p = await asyncio.to_thread(propose, cps.store, cps.session, direction, turns)
    if p is None:
        missing = await asyncio.to_thread(no_checkpoint, cps.store, cps.session) if direction == "undo" else []
        return Say(f"Nothing to undo: {without_checkpoint(missing[0])}" if missing else
                   "Nothing to undo: no turn of this session changed files, or all are undone" if direction == "undo"
                   else "Nothing to redo: /undo first (a new turn after an undo ends what can be redone)")
    return await confirm(s.engine, cps, p)


async def confirm(engine: Engine, cps: TurnCheckpoints, p: Plan) -> Confirm:
    """The question before a restore: what it does, and its diff."""
    diff = await asyncio.to_thread(diff_text, cps.store, p)
    return Confirm(p.direction, describe(p), diff, bool(p.conflicts), partial(_answered, engine, cps, p))


async def _answered(engine: Engine, cps: TurnCheckpoints, p: Plan, answer: str | None) -> Result:
    if answer is None:
        return Say("Nothing was changed")
    return await restore(engine, cps, p, overwrite=answer == "overwrite")


async def restore(engine: Engine, cps: TurnCheckpoints, p: Plan, overwrite: bool) -> Say:
    """Put the files back as `p` says (the session file records it); what happened, in one line."""
    try:
        if cps.lock is not None:  # another rivulet's turn in this workspace ends first (said, Esc stops it)
            await cps.lock.hold(RESTORING)
        try:
            writer = engine.writer
            result = await asyncio.to_thread(carry_out, cps.store, p, overwrite,
                                             writer.restored if writer is not None else None)
        finally:
            if cps.lock is not None:
                cps.lock.release()
    except (RivuletError, OSError) as exc:
        return Say(f"Not restored: {getattr(exc, 'message', None) or exc}", "error")
    return Say(outcome(p, result), timeout=8)
