"""Issue 35, item 10: the undo plan lists every path on one row, escaped. A file name
with a newline (or a line separator, or another control) was printed as it is, so a
model could name a file `a\\n+rm -rf ~` and show diff lines of its own in the plan; and
`rivulet undo` without --session took the session of the newest checkpoint, which may
have nothing left to undo while an older session of the workspace has."""

from __future__ import annotations

from pathlib import Path

from helpers.checkpoint_cases import turn

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.actions import describe, outcome, propose
from rivulet.core.checkpoints.store import CheckpointStore

EVIL = "a\n+rm -rf ~\n-safe line"  # one file; printed raw it is three diff lines
SEPARATED = "b\u2028+added by nobody"  # str.splitlines() (the dialog's diff colouring) cuts at U+2028
FAKES = ("+rm -rf ~", "-safe line", "+added by nobody")


def _planted(tmp_path: Path) -> tuple[Path, CheckpointStore]:
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / EVIL).write_text("old\n")

    def change(w: Path) -> None:
        (w / EVIL).write_text("new\n")
        (w / SEPARATED).write_text("x\n")
        (w / "c\rd").write_text("y\n")

    turn(ws, data, change, command="printf x >'a\n+fake command line'")
    return ws, CheckpointStore(ws, data)


def _rows(text: str) -> list[str]:
    return text.splitlines()


def test_every_name_in_the_plan_and_its_diff_stays_on_one_row(tmp_path):
    ws, store = _planted(tmp_path)
    (ws / EVIL).write_text("mine\n")  # changed since: listed as a conflict
    p = propose(store, None, "undo")
    assert p is not None and len(p.ops) == 3
    lines = describe(p)
    diff = restore.diff_text(store, p)
    rows = [row for line in lines for row in _rows(line)] + _rows(diff)
    for fake in FAKES:
        assert not any(row.startswith(fake) for row in rows), (fake, rows)
    assert "+fake command line" not in rows and not any(r.startswith("+fake") for r in rows)
    assert all("\r" not in row for row in rows)
    assert len([r for r in _rows(diff) if r.startswith("+++ ")]) == 3  # one header per file
    assert any("a␊+rm -rf ~␊-safe line" in row for row in rows)
    assert any("b\\u2028+added by nobody" in row for row in rows)
    assert any("Changed since" in line and "a␊+rm -rf ~␊-safe line" in line for line in lines)


def test_what_was_left_is_named_on_one_row_too(tmp_path):
    ws, store = _planted(tmp_path)
    (ws / EVIL).write_text("mine\n")
    p = propose(store, None, "undo")
    assert p is not None
    with store.locked():
        result = restore.apply(store, p)
    said = outcome(p, result)
    assert "\n" not in said and "a␊+rm -rf ~␊-safe line: changed since" in said
    assert (ws / EVIL).read_text() == "mine\n" and not (ws / SEPARATED).exists()


def test_the_default_session_is_the_latest_with_a_turn_to_undo(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / "a.txt").write_text("0\n")
    turn(ws, data, lambda w: (w / "a.txt").write_text("1\n"), session="OLD")
    turn(ws, data, lambda w: (w / "b.txt").write_text("b\n"), session="NEW")
    store = CheckpointStore(ws, data)
    assert restore.choose_session(store, None, "undo") == "NEW"
    p = propose(store, "NEW", "undo")
    assert p is not None
    with store.locked():
        restore.apply(store, p)  # NEW's one turn is undone: NEW has nothing left to undo
    assert restore.choose_session(store, None, "undo") == "OLD"  # not NEW (the newest checkpoint's session)
    assert restore.choose_session(store, None, "redo") == "NEW"
    assert restore.choose_session(store, "OL", "undo") == "OLD"  # a prefix
    p = propose(store, "OLD", "undo")
    assert p is not None
    with store.locked():
        restore.apply(store, p)
    assert (ws / "a.txt").read_text() == "0\n"
    assert restore.choose_session(store, None, "undo") is None
    assert restore.choose_session(store, None, "redo") == "OLD"  # redo walks forward: the oldest undone first
