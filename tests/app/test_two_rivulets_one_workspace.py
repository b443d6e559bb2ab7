"""Issue 36, item 2, with real processes: a turn in this process (a chat's, through the
same TurnCheckpoints and lock the engine gives it) and `rivulet exec` / `rivulet undo`
started beside it in the same workspace. The second one waits for the first, says so in
one line on stderr, and the undo of each turn puts back only what that turn changed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from terminal.stream_server import StreamServer

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.store import CheckpointStore
from rivulet.core.checkpoints.turn_lock import TurnLock
from rivulet.core.checkpoints.turns import TurnCheckpoints

SHELL = {"workdir": None, "timeout_ms": 20000, "justification": None, "outside_sandbox": None}


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "data"), "RIVULET_CONFIG": os.devnull,
            "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_SANDBOX": "off"}


def _exec(tmp_path: Path, ws: Path, server: StreamServer, prompt: str = "make two files") -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "rivulet.app", "exec", "--base-url", server.base_url,
                             "--approval", "never-ask", "--workspace", str(ws), prompt],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            env=_env(tmp_path), start_new_session=True)


def _line_with(stream, word: str) -> str:
    """The first line of `stream` that holds `word` ("" at its end)."""
    for line in stream:
        if word in line:
            return line
    return ""


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def _chat_turn(ws: Path, data: Path) -> TurnCheckpoints:
    lock = TurnLock(ws, "CHAT-SESSION", root=data)
    return TurnCheckpoints(ws, "CHAT-SESSION", root=data, lock=lock)


def test_exec_waits_for_the_chats_turn_and_undoing_the_chat_keeps_the_execs_files(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("old\n")
    chat = _chat_turn(ws, tmp_path / "data")
    asyncio.run(chat.before_tool("edit the notes"))  # the chat's turn is under way: it holds the workspace
    (ws / "notes.md").write_text("new\n")
    server = StreamServer().start()
    try:
        server.call("shell", {"command": "echo 1 > made1.txt && echo 2 > made2.txt", **SHELL})
        proc = _exec(tmp_path, ws, server)
        said = _line_with(proc.stderr, "Waiting")
        assert said.strip() == (f"rivulet: Waiting: another rivulet (pid {os.getpid()}, session CHAT-SESSION) is "
                                "running a tool in this workspace; this run goes on when it is done")
        assert not (ws / "made1.txt").exists()  # it waits: its command has not run
        chat.end_turn(1)  # the chat's turn ends: its checkpoint is written, the workspace let go
        chat.wait()
        _, err = proc.communicate(timeout=120)
    finally:
        server.stop()
    assert proc.returncode == 0, err
    assert (ws / "made1.txt").read_text() == "1\n" and (ws / "made2.txt").read_text() == "2\n"
    assert [c.path for c in chat.last.changes] == ["notes.md"]  # not the exec's files
    store = CheckpointStore(ws, tmp_path / "data")
    with store.locked():
        p = restore.plan(store, restore.undoable(store, "CHAT-SESSION"), "undo")
        restore.apply(store, p)
    assert (ws / "notes.md").read_text() == "old\n"
    assert (ws / "made1.txt").exists() and (ws / "made2.txt").exists()  # were deleted, unsaid
    exec_session = next(cp.session for cp in store.checkpoints() if cp.session != "CHAT-SESSION")
    assert {c.path for c in store.checkpoints(exec_session)[0].changes} == {"made1.txt", "made2.txt"}


def test_rivulet_undo_waits_for_a_turn_under_way_and_then_leaves_what_it_changed(tmp_path):
    ws, data = tmp_path / "ws", tmp_path / "data"
    ws.mkdir()
    (ws / "a.txt").write_text("0\n")
    first = TurnCheckpoints(ws, "FIRST", root=data)
    asyncio.run(first.before_tool("echo 1 > a.txt"))
    (ws / "a.txt").write_text("1\n")
    (ws / "b.txt").write_text("1\n")
    first.end_turn(1)
    first.wait()
    running = _chat_turn(ws, data)  # another session's turn, under way
    asyncio.run(running.before_tool("echo 2 > b.txt"))
    proc = subprocess.Popen([sys.executable, "-m", "rivulet.app", "undo", "--workspace", str(ws), "--session",
                             "FIRST", "--yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, env=_env(tmp_path))
    said = _line_with(proc.stderr, "Waiting")
    assert "another rivulet" in said and "session CHAT-SESSION) is running a tool" in said
    assert (ws / "a.txt").read_text() == "1\n"  # nothing put back while the turn runs
    (ws / "b.txt").write_text("2\n")  # the running turn's tool
    running.end_turn(1)
    running.wait()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert (ws / "a.txt").read_text() == "0\n"
    assert (ws / "b.txt").read_text() == "2\n"  # the other turn's file stays: it changed since the plan was shown
    assert "b.txt: changed by another session's turn since (session CHAT-SESSION, turn 1), left as it is" in out


def test_an_exec_killed_between_its_calls_record_and_its_output_holds_nothing(tmp_path):
    """SIGKILL while its command runs (the call is in the session file, its output not):
    the next run in the workspace neither waits nor finds anything to finish."""
    ws = tmp_path / "ws"
    ws.mkdir()
    server = StreamServer().start()
    try:
        server.call("shell", {"command": "echo $$ > started.txt && sleep 60", **SHELL})
        proc = _exec(tmp_path, ws, server, "a long command")
        deadline = time.monotonic() + 60
        while not (command := _text(ws / "started.txt")).endswith("\n"):  # it runs: the call was recorded
            assert time.monotonic() < deadline and proc.poll() is None, "the command did not start"
            time.sleep(0.02)  # (a condition polled, with a deadline)
        os.killpg(proc.pid, signal.SIGKILL)
        os.killpg(int(command), signal.SIGKILL)  # its command, in a session of its own
        proc.communicate(timeout=60)
        session = next((tmp_path / "sessions").glob("*.jsonl"))
        kinds = [json.loads(line).get("item", {}).get("type") for line in session.read_text().splitlines()]
        assert "function_call" in kinds and "function_call_output" not in kinds
        server.call("shell", {"command": "echo next > next.txt", **SHELL})
        again = _exec(tmp_path, ws, server, "next")
        _, err = again.communicate(timeout=120)
    finally:
        server.stop()
    assert again.returncode == 0, err
    assert "Waiting" not in err and "interrupted restore" not in err
    assert (ws / "next.txt").read_text() == "next\n"
