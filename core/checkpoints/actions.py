"""What /undo, /redo, a rewind with files and `rivulet undo` share: choose the checkpoints,
make the plan, say it in plain lines, carry it out and record it in the session file."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.core.checkpoints.limits import MB, CheckpointLimits
from rivulet.core.checkpoints.turns import TurnCheckpoints
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:  # restore is imported by an undo, not by every run that takes checkpoints
    from rivulet.core.checkpoints.restore import Plan, Result
    from rivulet.core.checkpoints.store import Checkpoint, CheckpointStore
    from rivulet.core.checkpoints.turn_lock import TurnLock


def limits_of(settings: Any) -> CheckpointLimits:
    """The store's limits from the settings (checkpoint_* in config.toml)."""
    return CheckpointLimits(file_bytes=int(settings.checkpoint_file_max_mb * MB),
                  turn_bytes=int(settings.checkpoint_turn_max_mb * MB), keep=int(settings.checkpoint_keep),
                  total_bytes=int(settings.checkpoint_max_mb * MB))


def propose(store: CheckpointStore, session: str | None, direction: str, turns: int = 1,
            since: int | None = None) -> Plan | None:
    """The plan of an undo or redo of `turns` turns (or, with `since`, of a rewind to before
    that turn). None: there is nothing to undo or redo."""
    from rivulet.core.checkpoints import restore

    with store.locked():
        if since is not None:
            assert session is not None
            chosen = restore.since_turn(store, session, since)
        elif direction == "undo":
            chosen = restore.undoable(store, session, turns)
        else:
            chosen = restore.redoable(store, session, turns)
        return restore.plan(store, chosen, direction) if chosen else None


def without_checkpoint(cp: Checkpoint) -> str:
    """One line for a turn that has no checkpoint (its record says why)."""
    return sanitize(f"turn {cp.turn} has no checkpoint: {cp.why or 'it was not taken'}")


def describe(p: Plan) -> list[str]:
    """The plan in plain lines (untrusted names and commands on one row each, escaped):
    what changes, what is left alone and why, and every command whose effects outside
    the workspace stay."""
    from rivulet.core.checkpoints.restore import NOT_UNDONE, shown

    verb = "Undo" if p.direction == "undo" else "Redo"
    turns = ", ".join(str(t) for t in p.turns)
    files = len(p.ops)
    lines = [f"{verb} the files of turn{'s' if len(p.turns) > 1 else ''} {turns}: "
             f"{files} path{'s' if files != 1 else ''} to put back" if files else
             f"{verb} turn{'s' if len(p.turns) > 1 else ''} {turns}: no file in the workspace to put back"]
    if p.conflicts:
        lines.append("Changed since (left alone unless you choose to overwrite): "
                     + ", ".join(f"{shown(k)} ({v})" for k, v in p.conflicts.items()))
    lines += [f"Cannot be put back: {shown(lost)}" for lost in p.lost]
    # One line per distinct command: a small model's loop runs the same one many times.
    for command, times in Counter(p.commands).items():
        ran = f"Ran `{shown(command)}`" + (f" ({times} times)" if times > 1 else "")
        lines.append(f"{ran}: {NOT_UNDONE}.")
    return lines


def carry_out(store: CheckpointStore, p: Plan, overwrite: bool = False,
              record: Callable[[dict[str, Any]], None] | None = None) -> Result:
    """Restore, all or nothing; then record it (the session file). Hold the workspace's
    turn lock around it. The plan is made again first: what changed while it was shown
    (another session's turn that ran meanwhile) is left as it is, `overwrite` or not."""
    from rivulet.core.checkpoints import restore

    with store.locked():
        now = {cp.seq: cp.status for cp in store.checkpoints()}
        if any(now.get(cp.seq) != cp.status for cp in p.checkpoints):
            raise restore.RestoreError(f"turn {', '.join(str(t) for t in p.turns)} was undone, redone or pruned "
                                       "meanwhile (another rivulet?): nothing was changed")
        fresh = restore.plan(store, p.checkpoints, p.direction)
        unseen = {path: why for path, why in fresh.conflicts.items() if path not in p.conflicts}
        result = restore.apply(store, fresh, overwrite=overwrite, unseen=unseen)
    if record is not None:
        record({"type": "restore", "direction": p.direction, "turns": p.turns, "files": result.changed,
                "left": result.left, "time": round(time.time(), 3)})
    return result


def outcome(p: Plan, result: Result) -> str:
    """One line for a toast or stdout."""
    from rivulet.core.checkpoints.restore import shown

    verb = "Undid" if p.direction == "undo" else "Redid"
    what = f"{verb} turn{'s' if len(p.turns) > 1 else ''} {', '.join(str(t) for t in p.turns)}: " \
           f"{len(result.changed)} path{'s' if len(result.changed) != 1 else ''} put back"
    if result.left:
        what += f"; left as they are: {', '.join(shown(left) for left in result.left)}"
    return sanitize(what)


def for_run(settings: Any, workspace: Path, session: str | Callable[[], str | None],
            notice: Callable[[str], None], lock: TurnLock | None = None) -> TurnCheckpoints | None:
    """The checkpoints of a chat or exec run (None: `checkpoints = false`)."""
    if not settings.checkpoints:
        return None
    return TurnCheckpoints(workspace, session, limits_of(settings), notice=notice, lock=lock)


def turn_lock_for(workspace: Path, session: Callable[[], str | None], notice: Callable[[str], None]) -> TurnLock:
    """The workspace's turn lock for a run (with checkpoints or without: two writers in one
    workspace wait for each other either way)."""
    from rivulet.core.checkpoints.turn_lock import TurnLock

    return TurnLock(workspace, session, notice=notice)

