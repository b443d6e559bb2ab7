"""The chat's views over /undo's restore (app/commands/undo.py): ctrl+t's list of the turns
that changed files, with their diffs (`u` undoes back to one), and the question before a
rewind (Esc Esc, the inspector's edit) whether the files go back too."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.app.commands.conversation import BUSY
from rivulet.app.commands.services import HasEngine, HasNotify, HasTurns
from rivulet.app.commands.undo import checkpoints_of, confirm, restore
from rivulet.core.checkpoints.actions import describe, propose
from rivulet.widgets.choice import Choice, ChoiceScreen

if TYPE_CHECKING:
    from textual.screen import Screen

    from rivulet.app.commands.results import Result
    from rivulet.core.checkpoints.restore import Plan
    from rivulet.widgets.turn_list import TurnRow


class Screens(Protocol):
    """A dialog over the chat, and its answer."""

    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...


class UndoViewNeeds(HasEngine, HasTurns, HasNotify, Protocol):
    pass


async def rewind_files(s: UndoViewNeeds, screens: Screens, turn_id: int) -> bool:
    """Before a rewind to before `turn_id`: when files changed since, ask "conversation and
    files" (the default) or "conversation only", and put the files back for the first.
    False: the user cancelled, or the files could not be put back (the rewind does not
    happen then)."""
    cps = checkpoints_of(s.engine)
    if cps is None:
        return True
    await asyncio.to_thread(cps.wait)
    p = await asyncio.to_thread(propose, cps.store, cps.session, "undo", 1, turn_id)
    if p is None or not p.ops:
        return True  # no file changed since: the conversation alone is rewound
    picked = await screens.push_screen_wait(ChoiceScreen(
        f"Rewind to before turn {turn_id}", [
            Choice("files", "Conversation and files", f"{len(p.ops)} paths put back as they were before it"),
            Choice("conversation", "Conversation only", "the files stay as they are now")],
        current="files", note=" ".join(describe(p)[1:])))
    if picked is None:
        return False
    if picked == "conversation":
        return True
    said = await restore(s.engine, cps, p, overwrite=False)
    s.notify(said.text, severity=said.severity, timeout=said.timeout)
    return said.severity != "error"


async def show_turns(s: UndoViewNeeds, screens: Screens, this_turn: str) -> Result:
    """ctrl+t: the turns that changed files with their diffs; `u` undoes back to one.
    `this_turn`: the running (or last) turn's diff so far."""
    from rivulet.core.checkpoints.restore import checkpoint_diff, since_turn
    from rivulet.core.checkpoints.restore import plan as make_plan
    from rivulet.widgets.turn_list import TurnListScreen, TurnRow

    cps = checkpoints_of(s.engine)
    rows: list[TurnRow] = []
    running = s.turns.running()
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
        rows.insert(0, TurnRow(None, "This turn (its patches so far)" if running else "The last turn", this_turn))
    turn = await screens.push_screen_wait(TurnListScreen(rows))
    if turn is None or cps is None:
        return None
    if s.turns.running():
        return BUSY

    def planned() -> Plan | None:
        with cps.store.locked():
            chosen = since_turn(cps.store, cps.session, turn)
            return make_plan(cps.store, chosen, "undo") if chosen else None

    p = await asyncio.to_thread(planned)
    return await confirm(s.engine, cps, p) if p is not None else None
