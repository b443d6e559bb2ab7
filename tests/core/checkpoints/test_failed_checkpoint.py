"""Issue 36, item 4: with the checkpoint store on a small filesystem, the first checkpoint
failed and left ~252 KiB of objects nothing named; every later run failed too, even once
the workspace fitted, and `rivulet undo` said only "nothing to undo". Now a failed
checkpoint removes what its walks stored, the turn says why it has none, a record keeps
the reason, and `rivulet undo` says "turn N has no checkpoint: why". (A real 256 KiB
tmpfs: mounting needs root, which CI is.)"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from helpers.small_disk import mounted_tmpfs

from rivulet.core.checkpoints.restore import no_checkpoint
from rivulet.core.checkpoints.turns import TurnCheckpoints

FULL = "the disk of the checkpoint store is full (No space left on device)"
KIB = 1024


def _turn(ws: Path, disk: Path, session: str, change, notes: list[str] | None = None) -> TurnCheckpoints:
    cps = TurnCheckpoints(ws, session, root=disk, notice=(notes if notes is not None else []).append)
    asyncio.run(cps.before_tool("the turn's command"))
    change(ws)
    cps.end_turn(1)
    cps.wait()
    return cps


def _stored(cps: TurnCheckpoints) -> int:
    return sum(cps.store.objects.size(d) for d in cps.store.objects.all())


def _undo(ws: Path, disk: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RIVULET_CHECKPOINTS_DIR": str(disk), "RIVULET_CONFIG": os.devnull,
           "RIVULET_SESSIONS_DIR": str(disk.parent / "sessions")}
    return subprocess.run([sys.executable, "-m", "rivulet.app", "undo", "--workspace", str(ws), "--dry-run"],
                          capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def test_a_first_checkpoint_too_big_for_its_disk_leaves_nothing_says_why_and_the_next_run_fits(tmp_path):
    """As reported: three 84 KiB files are stored (252 KiB), then the store's own record has
    no room; the 252 KiB stayed, and every later run failed on the full disk."""
    ws = tmp_path / "ws"
    ws.mkdir()
    for n in range(3):
        (ws / f"blob{n}").write_bytes(os.urandom(84 * KIB))
    with mounted_tmpfs(tmp_path / "disk", "256k") as disk:
        notes: list[str] = []
        cps = _turn(ws, disk, "S1", lambda w: (w / "note.txt").write_text("x\n"), notes)
        assert cps.last is None
        assert _stored(cps) == 0, "the failed checkpoint's objects were left on the full disk"
        assert notes == [f"This turn has no checkpoint: {FULL}. /undo cannot put back what it changes"]
        assert [(cp.turn, cp.status, cp.why) for cp in cps.store.checkpoints()] == [(1, "failed", FULL)]
        done = _undo(ws, disk)
        assert done.returncode == 1 and done.stderr == f"rivulet: turn 1 has no checkpoint: {FULL}\n", done.stderr
        (ws / "blob0").unlink()  # the workspace fits now
        again = _turn(ws, disk, "S2", lambda w: (w / "note.txt").write_text("y\n"))
        assert again.last is not None and [c.path for c in again.last.changes] == ["note.txt"]
        done = _undo(ws, disk)
        assert done.returncode == 0 and "Undo the files of turn 1: 1 path to put back" in done.stdout, done.stderr


def test_a_workspace_that_shrank_to_fit_is_checkpointed_again(tmp_path):
    """The store full of the contents of files since deleted: they go, and the run's
    checkpoint is taken (before, every later run failed: "checkpoints are off")."""
    ws = tmp_path / "ws"
    ws.mkdir()
    for n in range(5):
        (ws / f"blob{n}").write_bytes(os.urandom(60 * KIB))
    with mounted_tmpfs(tmp_path / "disk", "256k") as disk:
        first = _turn(ws, disk, "S1", lambda w: (w / "note.txt").write_text("1\n"))
        assert first.last is not None and _stored(first) >= 4 * 60 * KIB  # the disk is all but full
        for n in range(3):
            (ws / f"blob{n}").unlink()
        notes: list[str] = []
        again = _turn(ws, disk, "S2", lambda w: (w / "note.txt").write_text("2\n"), notes)
        assert notes == [] and again.last is not None and [c.path for c in again.last.changes] == ["note.txt"]
        assert no_checkpoint(again.store, "S2") == []


def test_a_content_the_full_store_cannot_keep_is_named_with_the_reason(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with mounted_tmpfs(tmp_path / "disk", "256k") as disk:
        (ws / "a.bin").write_bytes(os.urandom(100 * KIB))
        (ws / "b.bin").write_bytes(os.urandom(100 * KIB))
        (ws / "c.bin").write_bytes(os.urandom(100 * KIB))
        notes: list[str] = []

        def change(w: Path) -> None:
            for name in ("a.bin", "b.bin", "c.bin"):
                (w / name).write_bytes(b"changed")

        cps = _turn(ws, disk, "S1", change, notes)
        assert cps.last is not None and len(cps.last.skipped) == 1  # one of the three had no room
        assert cps.last.skipped[0].endswith(f".bin: {FULL}")  # not "could not be read"
        assert notes == [f"Checkpoint: /undo cannot restore {cps.last.skipped[0]}"]
        assert not list(disk.rglob(".*tmp*")), "a temporary file was left"
