"""`rivulet undo` (issue 26): the same plan and restore as /undo, for scripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers.checkpoint_cases import state, turn

from rivulet.core.store.session import load_session


def _undo(ws: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "data"),
           "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_CONFIG": os.devnull}
    return subprocess.run([sys.executable, "-m", "rivulet.app", "undo", "--workspace", str(ws), *args],
                          capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


def _two_turns(tmp_path: Path) -> tuple[Path, list[dict]]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("0\n")
    states = [state(ws)]
    for n in (1, 2):
        turn(ws, tmp_path / "data", lambda w, n=n: (w / "a.txt").write_text(f"{n}\n"), number=n,
             command=f"echo {n} > a.txt")
        states.append(state(ws))
    return ws, states


def test_undo_for_scripts_shows_the_plan_and_needs_yes(tmp_path):
    ws, states = _two_turns(tmp_path)
    done = _undo(ws, tmp_path, "--dry-run")
    assert done.returncode == 0 and state(ws) == states[2]
    assert "Undo the files of turn 2: 1 path to put back" in done.stdout and "-2\n+1" in done.stdout
    assert "Ran `echo 2 > a.txt`" in done.stdout and "cannot be undone" in done.stdout
    done = _undo(ws, tmp_path)  # no terminal, no --yes: nothing changes
    assert done.returncode == 2 and "add --yes" in done.stderr and state(ws) == states[2]
    done = _undo(ws, tmp_path, "--yes")
    assert done.returncode == 0 and "Undid turn 2: 1 path put back" in done.stdout
    assert state(ws) == states[1]


def test_undo_walks_back_several_turns_and_redo_comes_forward(tmp_path):
    ws, states = _two_turns(tmp_path)
    assert _undo(ws, tmp_path, "--turns", "2", "--yes").returncode == 0
    assert state(ws) == states[0]
    assert _undo(ws, tmp_path, "--yes").returncode == 1  # nothing left to undo
    assert _undo(ws, tmp_path, "--redo", "--yes").returncode == 0
    assert state(ws) == states[1]
    assert _undo(ws, tmp_path, "--redo", "--session", "S", "--yes").returncode == 0  # an id's prefix
    assert state(ws) == states[2]
    done = _undo(ws, tmp_path, "--session", "nope", "--yes")
    assert done.returncode == 1 and "no checkpoint of a session 'nope'" in done.stderr


def test_a_conflict_stays_unless_forced(tmp_path):
    ws, states = _two_turns(tmp_path)
    (ws / "a.txt").write_text("mine\n")
    done = _undo(ws, tmp_path, "--yes")
    assert done.returncode == 0 and "a.txt: changed since, left as it is" in done.stdout
    assert (ws / "a.txt").read_text() == "mine\n"
    assert _undo(ws, tmp_path, "--redo", "--yes").returncode == 0  # (marks turn 2 applied again)
    (ws / "a.txt").write_text("mine\n")
    assert _undo(ws, tmp_path, "--yes", "--force").returncode == 0
    assert state(ws) == states[1]


def test_the_session_file_records_the_restore_and_still_loads_clean(tmp_path):
    ws, _ = _two_turns(tmp_path)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    path = sessions / "S1.jsonl"
    path.write_text(json.dumps({"type": "session", "format": 1, "id": "S1", "created": 1.0, "cwd": str(ws),
                                "model": "m", "base_url": "http://x"}) + "\n")
    assert _undo(ws, tmp_path, "--yes").returncode == 0
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[-1]["type"] == "restore" and records[-1]["direction"] == "undo" and records[-1]["turns"] == [2]
    assert load_session(path).warnings == []


def test_exec_takes_a_checkpoint_that_rivulet_undo_puts_back(tmp_path):
    from terminal.stream_server import StreamServer

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("old\n")
    server = StreamServer().start()
    try:
        server.call("shell", {"command": "echo new > notes.md && echo x > made.txt", "workdir": None,
                              "timeout_ms": 7000, "justification": None, "outside_sandbox": None})
        env = {**os.environ, "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "data"), "RIVULET_CONFIG": os.devnull,
               "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_SANDBOX": "off"}
        done = subprocess.run([sys.executable, "-m", "rivulet.app", "exec", "--base-url", server.base_url,
                               "--approval", "never-ask", "--workspace", str(ws), "change the notes"],
                              capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert (ws / "notes.md").read_text() == "new\n" and (ws / "made.txt").exists()
    session = next((tmp_path / "sessions").glob("*.jsonl")).stem
    done = _undo(ws, tmp_path, "--yes")
    assert done.returncode == 0, done.stderr
    assert (ws / "notes.md").read_text() == "old\n" and not (ws / "made.txt").exists()
    records = [json.loads(line) for line in (tmp_path / "sessions" / f"{session}.jsonl").read_text().splitlines()]
    assert records[-1]["type"] == "restore" and sorted(records[-1]["files"]) == ["made.txt", "notes.md"]


def test_without_session_it_takes_the_latest_session_with_a_turn_to_undo_and_says_which(tmp_path):
    """Issue 35: the newest checkpoint's session had nothing left to undo (its turn was
    undone), and `rivulet undo` said "nothing to undo" although an older session's was not."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("0\n")
    turn(ws, tmp_path / "data", lambda w: (w / "a.txt").write_text("1\n"), session="OLD-session")
    turn(ws, tmp_path / "data", lambda w: (w / "b.txt").write_text("b\n"), session="NEW-session")
    first = _undo(ws, tmp_path, "--yes")
    assert first.returncode == 0 and not (ws / "b.txt").exists()
    done = _undo(ws, tmp_path, "--yes")
    assert done.returncode == 0, done.stderr  # was 1: "nothing to undo"
    assert (ws / "a.txt").read_text() == "0\n"
    assert first.stdout.startswith("Session NEW-session (the latest in this workspace with a turn to undo")
    assert done.stdout.startswith("Session OLD-session (the latest in this workspace with a turn to undo")
    done = _undo(ws, tmp_path, "--redo", "--dry-run")
    assert done.returncode == 0 and done.stdout.startswith("Session OLD-session (the latest in this workspace "
                                                           "with a turn to redo")


def test_a_file_name_with_a_newline_is_one_escaped_row_of_the_plan(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    evil = "notes\n+++ b\u2215etc\u2215passwd\n+root::0:0:all"
    turn(ws, tmp_path / "data", lambda w: (w / evil).write_text("x\n"), command="touch 'notes\n-all is well'")
    done = _undo(ws, tmp_path, "--dry-run")
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert not any(row.startswith(("+root", "+++ b\u2215etc", "-all is well")) for row in rows), rows
    assert "--- a/notes␊+++ b\u2215etc\u2215passwd␊+root::0:0:all" in rows  # undo deletes it
    assert "Ran `touch 'notes␊-all is well'`" in done.stdout
