"""Issue 26: restores are all or nothing (killed at every step, and at random times),
conflicts are listed and left alone, binary files, caps and .gitignore."""

from __future__ import annotations

import os
import random
import signal
import subprocess
from pathlib import Path

from helpers.checkpoint_cases import (
    SESSION,
    many_changes,
    many_files,
    recover_process,
    restore_process,
    state,
    turn,
)

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.store import CheckpointLimits, CheckpointStore

NEVER = 10**6  # a step no restore reaches (0 is a step: the journal written, nothing changed yet)


def _setup(tmp_path: Path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    many_files(ws)
    before = state(ws)
    turn(ws, data, many_changes)
    return ws, data, before, state(ws)


def test_a_restore_killed_at_every_step_leaves_before_or_after(tmp_path):
    ws, data, before, after = _setup(tmp_path)
    steps = 0
    for kill_at in range(1, 200):
        done = subprocess.run(restore_process(ws, data, kill_at), capture_output=True, text=True, timeout=60)
        if done.returncode == 0:  # no step numbered kill_at: the whole restore ran
            steps = kill_at - 1
            break
        assert done.returncode == 9, done.stderr
        store = CheckpointStore(ws, data)
        with store.locked():  # recovery runs here
            pass
        assert state(ws) == after, f"killed at step {kill_at}: the workspace is half restored"
        assert not store.journal.exists()
        assert [cp.status for cp in store.checkpoints()] == ["applied"]
    assert steps > 10  # every path of the turn was a step the test killed at
    assert state(ws) == before


def test_a_restore_killed_after_it_is_done_is_finished_not_undone(tmp_path):
    ws, data, before, _ = _setup(tmp_path)
    done = subprocess.run(restore_process(ws, data, -1), capture_output=True, text=True, timeout=60)
    assert done.returncode == 9
    store = CheckpointStore(ws, data)
    assert store.journal.exists()
    with store.locked():
        pass
    assert state(ws) == before and [cp.status for cp in store.checkpoints()] == ["undone"]


def test_a_restore_killed_at_random_times_is_never_half_done(tmp_path):
    ws, data, before, after = _setup(tmp_path)
    rng = random.Random(26)
    for _ in range(8):
        proc = subprocess.Popen(restore_process(ws, data, NEVER), stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"  # the plan is made: the restore starts now
        # A random moment inside the restore (or just after it).
        for _ in range(rng.randrange(0, 40)):
            os.sched_yield()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        store = CheckpointStore(ws, data)
        with store.locked():
            pass
        now = state(ws)
        assert now in (before, after), "a kill left the workspace half restored"
        if now == before:  # it got through: redo, to kill the next one from the start again
            with store.locked():
                restore.apply(store, restore.plan(store, restore.redoable(store, SESSION), "redo"))
        assert state(ws) == after


def test_a_file_the_user_changed_since_is_listed_and_left_alone(tmp_path):
    ws, data, before, _ = _setup(tmp_path)
    (ws / "f3.txt").write_text("the user's own edit\n")
    store = CheckpointStore(ws, data)
    with store.locked():
        p = restore.plan(store, restore.undoable(store, SESSION), "undo")
        assert p.conflicts == {"f3.txt": "changed since"}
        result = restore.apply(store, p)
    assert (ws / "f3.txt").read_text() == "the user's own edit\n"
    assert result.left == ["f3.txt: changed since, left as it is"]
    now = state(ws)
    assert {k: v for k, v in now.items() if k != "f3.txt"} == {k: v for k, v in before.items() if k != "f3.txt"}


def test_a_conflict_is_overwritten_only_when_confirmed(tmp_path):
    ws, data, before, _ = _setup(tmp_path)
    (ws / "f3.txt").write_text("the user's own edit\n")
    store = CheckpointStore(ws, data)
    with store.locked():
        p = restore.plan(store, restore.undoable(store, SESSION), "undo")
        restore.apply(store, p, overwrite=True)
    assert state(ws) == before


def test_binary_files_are_restored_byte_for_byte(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    blob = bytes(range(256)) * 300 + b"\0\xff\xfe"
    (ws / "image.png").write_bytes(blob)
    cps = turn(ws, data, lambda w: (w / "image.png").write_bytes(os.urandom(5000)))
    store = cps.store
    with store.locked():
        p = restore.plan(store, restore.undoable(store, SESSION), "undo")
        assert restore.diff_text(store, p) == "Binary file image.png differs\n"
        restore.apply(store, p)
    assert (ws / "image.png").read_bytes() == blob


def test_a_file_over_the_cap_is_not_kept_and_said(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / "big.dat").write_bytes(b"b" * 5000)
    (ws / "small.txt").write_text("s\n")
    notes: list[str] = []

    def change(w: Path) -> None:
        (w / "big.dat").write_bytes(b"c" * 5000)
        (w / "small.txt").write_text("t\n")

    cps = turn(ws, data, change, limits=CheckpointLimits(file_bytes=4096))
    cps.notice = notes.append
    cp = cps.store.checkpoints()[0]
    assert cp.skipped == ["big.dat: 5 KB, over the cap of 4 KB per file (checkpoint_file_max_mb)"]
    store = cps.store
    with store.locked():
        p = restore.plan(store, restore.undoable(store, SESSION), "undo")
        assert p.lost == ["big.dat: its content was not kept (over a cap, or unreadable): left as it is"]
        restore.apply(store, p)
    assert (ws / "small.txt").read_text() == "s\n" and (ws / "big.dat").read_bytes() == b"c" * 5000


def test_the_cap_per_checkpoint_skips_what_is_past_it(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    for n in range(10):
        (ws / f"f{n}").write_bytes(bytes([n]) * 1000)
    store = CheckpointStore(ws, data, CheckpointLimits(turn_bytes=3500))
    with store.locked():
        snap = store.snapshot()
    assert len(snap.not_kept) == 7 and all("per checkpoint" in why for why in snap.not_kept.values())


def test_gitignore_is_honoured(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    (ws / "sub").mkdir()
    (ws / "sub" / ".gitignore").write_text("local.txt\n")

    def change(w: Path) -> None:
        (w / "app.log").write_text("log\n")
        (w / "keep.log").write_text("kept\n")
        (w / "build").mkdir()
        (w / "build" / "out.o").write_bytes(b"o")
        (w / "sub" / "local.txt").write_text("l\n")
        (w / "sub" / "tracked.txt").write_text("t\n")

    cps = turn(ws, data, change)
    assert [c.path for c in cps.store.checkpoints()[0].changes] == ["keep.log", "sub/tracked.txt"]
    with cps.store.locked():
        restore.apply(cps.store, restore.plan(cps.store, restore.undoable(cps.store, SESSION), "undo"))
    assert (ws / "app.log").exists() and (ws / "build" / "out.o").exists() and (ws / "sub" / "local.txt").exists()
    assert not (ws / "keep.log").exists() and not (ws / "sub" / "tracked.txt").exists()


def test_unignoring_a_directory_does_not_make_undo_delete_it(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / ".gitignore").write_text("vendor/\n")
    (ws / "vendor").mkdir()
    (ws / "vendor" / "lib.py").write_text("x\n")
    cps = turn(ws, data, lambda w: (w / ".gitignore").write_text(""))
    assert [c.path for c in cps.store.checkpoints()[0].changes] == [".gitignore"]
    with cps.store.locked():
        restore.apply(cps.store, restore.plan(cps.store, restore.undoable(cps.store, SESSION), "undo"))
    assert (ws / "vendor" / "lib.py").read_text() == "x\n" and (ws / ".gitignore").read_text() == "vendor/\n"


def test_old_checkpoints_are_pruned_by_count_and_size(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    for n in range(5):
        turn(ws, data, lambda w, n=n: (w / "f").write_bytes(bytes([n]) * 2000), limits=CheckpointLimits(keep=3), number=n + 1)
    store = CheckpointStore(ws, data, CheckpointLimits(keep=3))
    assert [cp.turn for cp in store.checkpoints()] == [3, 4, 5]
    live = {e.digest for cp in store.checkpoints() for c in cp.changes for e in (c.before, c.after) if e}
    assert set(store.objects.all()) == live  # the objects only dropped checkpoints used are gone
    with store.locked():
        store.limits = CheckpointLimits(keep=10, total_bytes=5000)
        store.prune()
    assert [cp.turn for cp in store.checkpoints()] == [5]


def test_a_restore_that_fails_midway_says_so_in_one_line_and_changes_nothing(tmp_path):
    ws, data, _, after = _setup(tmp_path)
    store = CheckpointStore(ws, data)

    def disk_full(n: int) -> None:
        if n == 4:
            raise OSError(28, "No space left on device")

    with store.locked():
        p = restore.plan(store, restore.undoable(store, SESSION), "undo")
        try:
            restore.apply(store, p, step=disk_full)
        except restore.RestoreError as exc:
            message = exc.message
        else:
            raise AssertionError("the failure was not reported")
    assert message == "the restore failed (No space left on device); every file is as it was before it"
    assert state(ws) == after and not store.journal.exists()
    assert [cp.status for cp in store.checkpoints()] == ["applied"]  # it can be tried again


def test_a_recovery_killed_midway_is_recovered_the_same_way(tmp_path):
    ws, data, _, after = _setup(tmp_path)
    for kill_at, recovery_kill in ((6, 2), (12, 9), (15, 1)):
        assert subprocess.run(restore_process(ws, data, kill_at), capture_output=True, timeout=60).returncode == 9
        done = subprocess.run(recover_process(ws, data, recovery_kill), capture_output=True, timeout=60)
        assert done.returncode == 9, done.stderr
        store = CheckpointStore(ws, data)
        assert store.journal.exists()  # the recovery did not finish: the next one does it again
        with store.locked():
            pass
        assert state(ws) == after and not store.journal.exists()
