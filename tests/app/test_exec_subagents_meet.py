"""Issue 41 where features meet, in `rivulet exec`: Ctrl-C (SIGINT) while two subagents each
run a command stops both commands and both subagents; exit status 130, and the session
file records each spawn_agent call aborted (it resumes), nothing half-made."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from helpers.agent_server import first_user_text, spawn
from helpers.calls import answer, fn_call, fn_call_response
from helpers.local_server import Reply, Request, StubServer, sse_reply

PROMPT = "two at once"


class TwoSleepers(StubServer):
    """The parent spawns two subagents; each runs a command that writes its pid, then sleeps."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}

    def reply(self, request: Request) -> Reply | None:
        key = first_user_text(request.json()["input"])
        with self.lock:
            n = self.seen[key] = self.seen.get(key, 0) + 1
        if key == PROMPT:
            body = fn_call_response("r1", spawn("call_a", "sleep a", name="a"), spawn("call_b", "sleep b", name="b")) \
                if n == 1 else answer("r2", "never")
        else:
            who = key.split()[-1]
            shell = fn_call(f"fc_{who}", f"call_s{who}", "shell",
                            {"command": f"echo $$ > pid-{who}.txt; exec sleep 120", "workdir": None,
                             "timeout_ms": None, "justification": None, "outside_sandbox": None})
            body = fn_call_response(f"r{who}", shell) if n == 1 else answer(f"r{who}2", "never")
        return sse_reply(body, "length")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _until(check, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_ctrl_c_while_two_subagents_run_commands_stops_both_and_the_session_resumes(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_CONFIG": os.devnull, "RIVULET_PROBE_SERVERS": "false", "RIVULET_SANDBOX": "off",
                "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "cps")})
    with TwoSleepers() as server:
        proc = subprocess.Popen([sys.executable, "-m", "rivulet.app", "exec", "--approval", "never-ask",
                                 "--base-url", server.base_url, "--workspace", str(ws), PROMPT],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            pid_files = [ws / "pid-a.txt", ws / "pid-b.txt"]
            _until(lambda: all(p.is_file() and p.read_text().strip().isdigit() for p in pid_files),
                   "both subagents' commands running")
            pids = [int(p.read_text()) for p in pid_files]
            assert all(_alive(pid) for pid in pids)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, err
    assert "rivulet: interrupted" in err
    _until(lambda: not any(_alive(pid) for pid in pids), "the commands stopped")
    (session,) = (tmp_path / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in session.read_text().splitlines()]
    text = session.read_text()
    outputs = {r["item"]["call_id"]: r["item"]["output"] for r in records
               if isinstance(r.get("item"), dict) and r["item"].get("type") == "function_call_output"
               and r["item"]["call_id"] in ("call_a", "call_b")}
    assert outputs == {"call_a": "aborted: the user interrupted the turn",
                       "call_b": "aborted: the user interrupted the turn"}, text
    assert '"never"' not in text
