"""/undo, /redo and the rewinds that put files back (Esc Esc, the inspector's edit):
the checkpoints of core/checkpoints, asked about in widgets/undo_dialog.py.

The plan and the restore read and write files: they run in a thread, the UI goes on.
Each restore is recorded in the session file.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rivulet.core.checkpoints.actions import carry_out, describe, outcome, propose, without_checkpoint
from rivulet.core.checkpoints.restore import Plan, diff_text, no_checkpoint
from rivulet.core.checkpoints.turn_lock import RESTORING
from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import sanitize
from rivulet.widgets.choice import Choice, ChoiceScreen
from rivulet.widgets.undo_dialog import UndoScreen

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
    from rivulet.core.checkpoints.turns import TurnCheckpoints


def checkpoints_of(app: CommandContext) -> TurnCheckpoints | None:
    return getattr(app.tools, "checkpoints", None)


def _recorder(app: CommandContext) -> Any:
    return getattr(app.session_writer, "restored", None)


def _busy(app: CommandContext) -> bool:
    from rivulet.app.commands.conversation import busy

    return busy(app)


async def undo(app: CommandContext, arg: str = "") -> None:
    await _ask_and_restore(app, "undo", int(arg) if arg.strip().isdigit() else 1)


async def redo(app: CommandContext, arg: str = "") -> None:
    await _ask_and_restore(app, "redo", int(arg) if arg.strip().isdigit() else 1)


async def _ask_and_restore(app: CommandContext, direction: str, turns: int) -> bool:
    if _busy(app):
        return False
    cps = checkpoints_of(app)
    if cps is None:
        app.notify("Checkpoints are off (checkpoints = false, or no tools): nothing to undo", severity="warning")
        return False
    await asyncio.to_thread(cps.wait)  # the last turn's checkpoint, if it is still being written
    p = await asyncio.to_thread(propose, cps.store, cps.session, direction, turns)
    if p is None:
        missing = await asyncio.to_thread(no_checkpoint, cps.store, cps.session) if direction == "undo" else []
        app.notify(f"Nothing to undo: {without_checkpoint(missing[0])}" if missing else
                   "Nothing to undo: no turn of this session changed files, or all are undone" if direction == "undo"
                   else "Nothing to redo: /undo first (a new turn after an undo ends what can be redone)")
        return False
    return await confirm_and_restore(app, cps, p)


async def confirm_and_restore(app: CommandContext, cps: TurnCheckpoints, p: Plan) -> bool:
    diff = await asyncio.to_thread(diff_text, cps.store, p)
    answer = await app.push_screen_wait(UndoScreen(p.direction, describe(p), diff, bool(p.conflicts)))
    if answer is None:
        app.notify("Nothing was changed")
        return False
    return await _restore(app, cps, p, overwrite=answer == "overwrite")


async def _restore(app: CommandContext, cps: TurnCheckpoints, p: Plan, overwrite: bool) -> bool:
    try:
        if cps.lock is not None:  # another rivulet's turn in this workspace ends first (said, Esc stops it)
            await cps.lock.hold(RESTORING)
        try:
            result = await asyncio.to_thread(carry_out, cps.store, p, overwrite, _recorder(app))
        finally:
            if cps.lock is not None:
                cps.lock.release()
    except (RivuletError, OSError) as exc:
        app.notify(sanitize(f"Not restored: {getattr(exc, 'message', None) or exc}"), severity="error")
        return False
    app.notify(outcome(p, result), timeout=8)
    return True


async def rewind_files(app: CommandContext, turn_id: int) -> bool:
    """Before a rewind to before `turn_id`: when files changed since, ask "conversation and
    files" (the default) or "conversation only", and put the files back for the first.
    False: the user cancelled, or the files could not be put back (the rewind does not
    happen then)."""
    cps = checkpoints_of(app)
    if cps is None:
        return True
    await asyncio.to_thread(cps.wait)
    p = await asyncio.to_thread(propose, cps.store, cps.session, "undo", 1, turn_id)
    if p is None or not p.ops:
        return True  # no file changed since: the conversation alone is rewound
    picked = await app.push_screen_wait(ChoiceScreen(
        f"Rewind to before turn {turn_id}", [
            Choice("files", "Conversation and files", f"{len(p.ops)} paths put back as they were before it"),
            Choice("conversation", "Conversation only", "the files stay as they are now")],
        current="files", note=" ".join(describe(p)[1:])))
    if picked is None:
        return False
    if picked == "conversation":
        return True
    return await _restore(app, cps, p, overwrite=False)


async def show_turns(app: CommandContext) -> None:
    """ctrl+t: the turns that changed files with their diffs; `u` undoes back to one."""
    from rivulet.core.checkpoints.restore import checkpoint_diff, since_turn
    from rivulet.core.checkpoints.restore import plan as make_plan
    from rivulet.widgets.turn_list import TurnListScreen, TurnRow

    cps = checkpoints_of(app)
    rows: list[TurnRow] = []
    worker = app.turn_worker
    running = worker is not None and worker.is_running
    if cps is not None:
        def collect() -> list[TurnRow]:
            cps.wait()
            with cps.store.locked():
                found = [cp for cp in cps.store.checkpoints(cps.session) if cp.changes]
                return [TurnRow(cp.turn, f"Turn {cp.turn} · {len(cp.changes)} path{'s' if len(cp.changes) != 1 else ''}"
                                + (" · undone" if cp.status != "applied" else ""), checkpoint_diff(cps.store, cp),
                                cp.status == "applied") for cp in found[::-1]]

        rows = await asyncio.to_thread(collect)
    if running or not rows:
        rows.insert(0, TurnRow(None, "This turn (its patches so far)" if running else "The last turn",
                               app.turn_status.turn_diff))
    turn = await app.push_screen_wait(TurnListScreen(rows))
    if turn is None or cps is None or _busy(app):
        return

    def planned() -> Plan | None:
        with cps.store.locked():
            chosen = since_turn(cps.store, cps.session, turn)
            return make_plan(cps.store, chosen, "undo") if chosen else None

    p = await asyncio.to_thread(planned)
    if p is not None:
        await confirm_and_restore(app, cps, p)
