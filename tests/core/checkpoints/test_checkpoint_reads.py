"""Issue 22's soak: a turn's checkpoint record read every kept checkpoint file again,
twice (2 parses at turn 1, 200 from turn 100 on). Parsed records are now kept while
their file is unchanged, so a turn parses the files that changed, whatever came before;
a file rewritten (here or by another process's store) is read again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rivulet.core.checkpoints import store as store_module
from rivulet.core.checkpoints.store import Checkpoint, CheckpointLimits, CheckpointStore


def _turn(store: CheckpointStore, ws: Path, n: int) -> None:
    with store.locked():
        before = store.snapshot()
    (ws / f"file_{n}.txt").write_text(f"turn {n}\n")
    with store.locked():
        after = store.snapshot()
        store.record("S1", n, before, after, [])


def _store_after(tmp_path: Path, turns: int) -> tuple[CheckpointStore, Path]:
    """A workspace's store with `turns` turns recorded; and the workspace."""
    ws = tmp_path / "ws"
    ws.mkdir()
    store = CheckpointStore(ws, tmp_path / "data")
    for n in range(1, turns + 1):
        _turn(store, ws, n)
    return store, ws


def _counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    parsed = [0]
    real = json.loads

    def loads(data: str | bytes, *args: object, **kwargs: object) -> object:
        parsed[0] += 1
        return real(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module.json, "loads", loads)
    return parsed


def test_a_late_turn_parses_no_more_checkpoint_files_than_an_early_one(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    store = CheckpointStore(ws, tmp_path / "data")
    parsed = _counting_loads(monkeypatch)
    per_turn = []
    for n in range(1, 31):
        parsed[0] = 0
        _turn(store, ws, n)
        per_turn.append(parsed[0])
    assert len(store.checkpoints()) == 30
    # Before: 2 * n parses at turn n (60 at turn 30). Now the new record alone, and
    # state.json when a walk reads it: the same at turn 30 as at turn 2.
    assert per_turn[-1] <= per_turn[1] <= 3, per_turn


def test_a_record_rewritten_elsewhere_is_read_again(tmp_path: Path) -> None:
    mine, ws = _store_after(tmp_path, 3)
    assert [cp.status for cp in mine.checkpoints()] == ["applied"] * 3
    other = CheckpointStore(ws, tmp_path / "data")  # `rivulet undo` in another process
    cp = other.checkpoints()[1]
    cp.status = "undone"
    other.save(cp)
    assert [c.status for c in mine.checkpoints()] == ["applied", "undone", "applied"]
    # A caller changing what it got does not change what the next call returns.
    got = mine.checkpoints()
    got[0].status = "dropped"
    got[0].changes.clear()
    again = mine.checkpoints()[0]
    assert again.status == "applied" and again.changes


def test_a_checkpoint_file_removed_is_gone_from_the_list(tmp_path: Path) -> None:
    store, _ = _store_after(tmp_path, 3)
    first = sorted(store.turns_dir.glob("*.json"))[0]
    first.unlink()
    assert [cp.turn for cp in store.checkpoints()] == [2, 3]


def test_a_turns_record_lists_the_kept_checkpoints_once_and_still_prunes(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The record and its pruning each listed and stat'ed every kept checkpoint (100 from
    turn 100 on); pruning now takes the list the record just read."""
    ws = tmp_path / "ws"
    ws.mkdir()
    store = CheckpointStore(ws, tmp_path / "data", CheckpointLimits(keep=3))
    listed = [0]
    real = CheckpointStore.checkpoints

    def checkpoints(self: CheckpointStore, session: str | None = None) -> list[Checkpoint]:
        listed[0] += 1
        return real(self, session)

    monkeypatch.setattr(CheckpointStore, "checkpoints", checkpoints)
    for n in range(1, 7):
        listed[0] = 0
        _turn(store, ws, n)
        assert listed[0] == 1, f"turn {n} listed its checkpoints {listed[0]} times"
    assert [cp.turn for cp in real(store)] == [4, 5, 6]  # the oldest past `keep` are gone
    assert len(list(store.turns_dir.glob("*.json"))) == 3
