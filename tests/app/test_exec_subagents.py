"""Issue 41 in `rivulet exec`: with --json every event of a subagent carries its id; without,
a line on stderr when each starts, per tool call, and when it ends (never its deltas). The
real CLI against a local server that answers the parent and each subagent by its prompt."""

from __future__ import annotations

import json

from helpers.agent_server import DelegatingServer
from helpers.aimock import rivulet

PROMPT = "delegate it"
TASK = "list the files"


def _server() -> DelegatingServer:
    """The parent's requests get a spawn_agent call then an answer; the subagent's a shell
    call (declined: nobody is asked in a headless exec) then its answer."""
    return DelegatingServer(PROMPT, TASK)


def _exec(tmp_path, *flags: str, server: DelegatingServer | None = None):
    with server or _server() as stub:
        return rivulet("exec", *flags, "--base-url", stub.base_url, PROMPT,
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_WORKSPACE": str(tmp_path)})


def test_json_lines_of_a_subagent_carry_its_id(tmp_path):
    proc = _exec(tmp_path, "--json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    mine = [e for e in lines if e.get("subagent") == "sa-1"]
    assert mine[0] == {"type": "subagent.started", "subagent": "sa-1", "call_id": "call_a", "name": "lister",
                       "task": TASK}
    assert mine[-1]["type"] == "subagent.ended" and mine[-1]["status"] == "completed"
    assert mine[-1]["answer"] == "three files"
    relayed = {e["type"] for e in mine[1:-1]}
    assert {"item.delta", "item.completed", "subagent.turn.completed"} <= relayed
    # The one turn.completed is the run's own: a script ending at it reads the whole answer.
    assert [e for e in lines if e["type"] == "turn.completed"] == [lines[-1]] and "subagent" not in lines[-1]
    assert lines[-1]["cost"]["subagents"]["count"] == 1


def test_human_exec_says_each_subagent_event_that_matters_on_stderr(tmp_path):
    proc = _exec(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "all done"
    said = [line for line in proc.stderr.splitlines() if "agent 'lister'" in line]
    assert said == [f"rivulet: agent 'lister' started: {TASK}", "rivulet: agent 'lister' → shell: ls",
                    "rivulet: agent 'lister' completed"]


def test_c_subagents_false_offers_no_spawn_agent(tmp_path):
    server = _server()
    proc = _exec(tmp_path, "-c", "subagents=false", server=server)
    # the model calls it anyway: answered as a tool this client does not have, no subagent runs
    assert proc.returncode == 0, proc.stderr
    assert "spawn_agent" not in server.tools[0] and "shell" in server.tools[0]
    assert list(server.seen) == [PROMPT] and "agent 'lister'" not in proc.stderr


def test_the_demo_delegates_to_two_subagents_at_once(tmp_path):
    """The embedded demo shows subagents to a first-hour user: "delegate" gets two
    spawn_agent calls, each subagent answers its own task, and the answer carries both."""
    proc = rivulet("exec", "--demo", "--json", "please delegate this",
                   env={"RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_WORKSPACE": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert sorted(e["name"] for e in lines if e["type"] == "subagent.started") == ["events", "undo"]
    answers = [e["answer"] for e in lines if e["type"] == "subagent.ended" and e["status"] == "completed"]
    assert len(answers) == 2 and all(a in lines[-1]["last_message"] for a in answers)
    starts = [n for n, e in enumerate(lines) if e["type"] == "subagent.started"]
    first_end = min(n for n, e in enumerate(lines) if e["type"] == "subagent.ended")
    assert max(starts) < first_end  # both started before either ended: at once
