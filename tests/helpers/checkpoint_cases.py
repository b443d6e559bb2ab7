"""Shared by the checkpoint tests: a workspace with one checkpointed turn, its state
before and after, and a subprocess that restores it and dies where it is told to."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rivulet.core.checkpoints.store import CheckpointLimits
from rivulet.core.checkpoints.turns import TurnCheckpoints

SESSION = "S1"


def state(ws: Path) -> dict[str, tuple]:
    """Every path's kind, mode and content (a link's target)."""
    out: dict[str, tuple] = {}
    for top, dirs, files in os.walk(ws):
        for name in dirs + files:
            p = Path(top) / name
            st = p.lstat()
            rel = p.relative_to(ws).as_posix()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                out[rel] = ("file", stat.S_IMODE(st.st_mode), p.read_bytes())
    return out


def turn(ws: Path, data: Path, change: Callable[[Path], None], limits: CheckpointLimits | None = None,
         number: int = 1, command: str | None = "the turn's command", session: str = SESSION) -> TurnCheckpoints:
    """One checkpointed turn (of `session`) whose tool does `change(ws)`."""
    cps = TurnCheckpoints(ws, session, limits=limits, root=data)
    asyncio.run(cps.before_tool(command))
    change(ws)
    cps.end_turn(number)
    cps.wait()
    return cps


def many_changes(ws: Path) -> None:
    """A turn that changes enough paths for a restore to have many steps."""
    for n in range(6):
        (ws / f"f{n}.txt").write_text(f"changed {n}\n")
    (ws / "gone.txt").unlink()
    (ws / "sub" / "new.bin").write_bytes(bytes(range(256)) * 4)
    os.chmod(ws / "run.sh", 0o755)
    os.symlink("f1.txt", ws / "link")


def many_files(ws: Path) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    for n in range(6):
        (ws / f"f{n}.txt").write_text(f"original {n}\n")
    (ws / "gone.txt").write_text("bye\n")
    (ws / "sub").mkdir()
    (ws / "run.sh").write_text("echo hi\n")


DRIVER = """
import os, sys
from pathlib import Path
from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.store import CheckpointStore
ws, data, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
store = CheckpointStore(ws, data)
def step(n):
    if n == kill_at:
        os._exit(9)
with store.locked():
    p = restore.plan(store, restore.undoable(store, "S1"), "undo")
    print("ready", flush=True)
    restore.apply(store, p, step=step)
print("done", flush=True)
"""


def restore_process(ws: Path, data: Path, kill_at: int) -> list[str]:
    return [sys.executable, "-c", DRIVER, str(ws), str(data), str(kill_at)]


RECOVER = """
import os, sys
from pathlib import Path
from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.store import CheckpointStore
ws, data, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
def step(n):
    if n == kill_at:
        os._exit(9)
restore.recover(CheckpointStore(ws, data), step=step)
"""


def recover_process(ws: Path, data: Path, kill_at: int) -> list[str]:
    """Recovery of a killed restore, itself killed at step `kill_at`."""
    return [sys.executable, "-c", RECOVER, str(ws), str(data), str(kill_at)]


def killed_restore(tmp_path: Path, kill_at: int) -> tuple[Path, dict, dict]:
    """A workspace (`tmp_path/ws`, its store in `tmp_path/data`) with one checkpointed turn
    whose undo was killed at step `kill_at` (0: the journal written, no file changed yet;
    -1: complete, its bookkeeping not): (the workspace, its state before the turn, after it)."""
    from rivulet.core.checkpoints.store import CheckpointStore

    ws, data = tmp_path / "ws", tmp_path / "data"
    many_files(ws)
    before = state(ws)
    turn(ws, data, many_changes)
    after = state(ws)
    done = subprocess.run(restore_process(ws, data, kill_at), capture_output=True, text=True, timeout=60)
    assert done.returncode == 9, done.stderr  # killed there, the journal left
    assert CheckpointStore(ws, data).journal.exists()
    if kill_at not in (0, -1):
        assert state(ws) not in (before, after)  # mixed: what the fault left
    return ws, before, after
