"""Issue 36, item 3: a restore killed midway left the workspace mixed until the checkpoint
store was next used; starting and quitting a chat did not repair it. Now every command
that opens the workspace (the chat, `resume`, plain mode, `exec`, `rivulet undo`) rolls a
pending journal back (or, if the restore was complete, forward) before anything else
touches its files, and says so in one line: on stderr, or held for the chat's notices.

A restore is killed at many steps (tests/helpers/checkpoint_cases.py: the driver dies at
step N; 0 is the journal written and no file changed yet, -1 the restore complete and its
bookkeeping not), then each command starts in the workspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.checkpoint_cases import killed_restore, many_changes, many_files, state, turn
from terminal.stream_server import StreamServer

from rivulet.app.boot import prepare
from rivulet.app.cli import build_parser
from rivulet.core.checkpoints.recovery import FINISHED, ROLLED_BACK
from rivulet.core.checkpoints.store import CheckpointStore


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "data"), "RIVULET_CONFIG": os.devnull,
            "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions")}


@pytest.fixture(scope="module")
def server():
    server = StreamServer().start()  # answers at once (the demo streams at reading speed)
    yield server
    server.stop()


def _command(name: str, server: StreamServer) -> list[str]:
    return {"exec": ["exec", "--base-url", server.base_url, "hello"], "undo": ["undo", "--dry-run"],
            "plain": ["--plain", "--demo"]}[name]


@pytest.mark.parametrize(("command", "kill_at"), [("exec", 0), ("exec", 6), ("exec", -1), ("undo", 1),
                                                  ("undo", 11), ("plain", 3), ("plain", -1)])
def test_a_command_started_after_a_killed_restore_makes_the_workspace_whole_and_says_so(tmp_path, server, command,
                                                                                        kill_at):
    ws, before, after = killed_restore(tmp_path, kill_at)
    done = subprocess.run([sys.executable, "-m", "rivulet.app", *_command(command, server), "--workspace", str(ws)],
                          capture_output=True, text=True, timeout=120, env=_env(tmp_path), stdin=subprocess.DEVNULL)
    assert done.returncode in (0, 1), done.stderr  # (undo: 1 once the turn is undone, nothing left to undo)
    expected = FINISHED if kill_at == -1 else ROLLED_BACK
    assert f"rivulet: {expected}\n" in done.stderr, done.stderr
    assert state(ws) == (before if kill_at == -1 else after)
    assert not CheckpointStore(ws, tmp_path / "data").journal.exists()


def test_a_command_with_nothing_to_recover_says_nothing(tmp_path, server):
    ws = tmp_path / "ws"
    many_files(ws)
    turn(ws, tmp_path / "data", many_changes)
    done = subprocess.run([sys.executable, "-m", "rivulet.app", *_command("exec", server), "--workspace", str(ws)],
                          capture_output=True, text=True, timeout=120, env=_env(tmp_path), stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "interrupted restore" not in done.stderr, done.stderr


def _held_notices(ready) -> list[str]:
    got: list[str] = []
    ready.notices.target = got.append  # as the engine binds it: what was held comes now
    return got


@pytest.mark.parametrize(("command", "kill_at"), [("chat", 2), ("chat", -1), ("resume", 8)])
def test_the_chats_start_recovers_before_anything_and_holds_the_line_for_its_notices(tmp_path, monkeypatch,
                                                                                      command, kill_at):
    ws, before, after = killed_restore(tmp_path, kill_at)
    for name, value in _env(tmp_path).items():
        if name.startswith("RIVULET_"):
            monkeypatch.setenv(name, value)
    argv = ["--demo", "--workspace", str(ws)]
    if command == "resume":
        sessions = tmp_path / "sessions"
        sessions.mkdir()
        (sessions / "S1.jsonl").write_text(json.dumps({"type": "session", "format": 1, "id": "S1", "created": 1.0,
                                                       "cwd": str(ws), "model": "m", "base_url": "http://x"}) + "\n")
        argv = ["resume", "S1", *argv]
    ready = prepare(build_parser().parse_args(argv))
    try:
        assert state(ws) == (before if kill_at == -1 else after)
        assert _held_notices(ready) == [FINISHED if kill_at == -1 else ROLLED_BACK]
        assert (ready.session is not None) == (command == "resume")
    finally:
        ready.stop()
