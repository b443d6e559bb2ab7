"""Ctrl-C during `rivulet exec` on a real terminal (issue 23.3): while the answer streams
and at the approval prompt. Each is one `rivulet: interrupted` line, exit status 130, no
traceback, and a session file that resumes: what was committed stays, the turn is
recorded as interrupted (as the chat's Esc records it)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from rivulet.core.store.session import load_session
from rivulet.core.turn.conversation import TURN_ABORTED

from .chat_app import RIVULET
from .stream_server import StreamServer, paragraphs
from .tmux import WAIT, Terminal, Timeout


def _session_file(sessions: Path) -> Path | None:
    files = list(sessions.glob("*.jsonl"))
    return files[0] if len(files) == 1 else None


def _wait_for_committed(sessions: Path, kind: str) -> Path:
    """Poll (bounded) until the session file holds a committed item of this type."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        path = _session_file(sessions)
        if path is not None and any(i.get("type") == kind for i in load_session(path).history.items):
            return path
        time.sleep(0.1)
    raise Timeout(f"no {kind} item was committed to a session file in {sessions}")


def _turn_outcomes(path: Path) -> list[str]:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["event"] for r in records if r.get("type") == "turn" and r.get("event") != "started"]


def _assert_one_interrupted_line(term: Terminal) -> None:
    assert term.wait_exit() == 130, term.scrollback()
    screen = term.scrollback()
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen, screen
    assert [line for line in screen.splitlines() if "interrupted" in line] == ["rivulet: interrupted"], screen


def test_ctrl_c_while_the_answer_streams(term, server: StreamServer, home: Path):
    sessions = home / "sessions"
    # A reasoning item commits first, then a long message streams at 2 words a second.
    server.answer_with(lambda prompt: paragraphs(200), words_per_second=2, reasoning="Thinking it over.")
    term.start([*RIVULET, "--base-url", server.base_url, "exec", "tell me a long story"],
               env={"RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": "/dev/null"})
    path = _wait_for_committed(sessions, "reasoning")
    term.send("C-c")
    _assert_one_interrupted_line(term)
    session = load_session(path)
    items = session.history.items
    assert [i["type"] for i in items][:2] == ["message", "reasoning"]  # the prompt, the committed reasoning
    assert items[-1]["content"][0]["text"] == TURN_ABORTED  # the model is told, next turn
    assert not any(i.get("role") == "assistant" for i in items)  # the half-streamed message is not kept
    assert _turn_outcomes(path) == ["interrupted"] and not session.warnings


def test_ctrl_c_at_the_approval_prompt(term, demo, home: Path):
    sessions, work = home / "sessions", home / "work"
    term.start([*RIVULET, "--base-url", demo.base_url, "exec", "--approval", "ask", "make a file"], cwd=work,
               env={"RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": "/dev/null"})
    term.wait("Apply this patch", what="the approval question")
    term.send("C-c")
    _assert_one_interrupted_line(term)  # at once: no Enter is needed to end the prompt's read
    assert not (work / "rivulet-demo.txt").exists()
    path = _session_file(sessions)
    assert path is not None
    items = load_session(path).history.items
    calls = [i for i in items if i["type"] in ("custom_tool_call", "function_call")]
    outputs = [i for i in items if i["type"] in ("custom_tool_call_output", "function_call_output")]
    assert len(calls) == 1 and len(outputs) == 1 and "aborted" in json.dumps(outputs[0])
    assert _turn_outcomes(path) == ["interrupted"]
