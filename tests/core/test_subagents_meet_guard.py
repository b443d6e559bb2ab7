"""Issue 41 where features meet: the protected-path guard (core/tools/protected_guard.py)
with subagents' sandboxed commands running at once in one workspace. One command plants a
bare git repository (`x/HEAD`, `x/objects`, `x/refs`, `x/config` with core.fsmonitor);
the other does nothing protected. The planted repository is asked about once, undone, and
the question names every command that could have made it; no other command is blamed for
it, and no walk taken while it existed puts it back. In bubblewrap (`workspace-write`)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from helpers.agent_server import AgentServer, spawn
from helpers.calls import answer, custom_call, custom_call_events, fn_call, fn_call_response
from helpers.mock_api import settings
from helpers.streams import body, completed, created

from rivulet.core.engine import Engine
from rivulet.core.tools.approval import Decision
from rivulet.core.tools.approval_event import ApprovalRequested
from rivulet.core.tools.router import ToolSettings
from rivulet.core.tools.sandbox import probe
from rivulet.core.turn.bus import EventBus

pytestmark = pytest.mark.bwrap

PROMPT = "split the work"
PLANT = ("mkdir -p x/objects x/refs && echo 'ref: refs/heads/main' > x/HEAD && "
         "printf '[core]\\n\\tfsmonitor = touch pwned\\n' > x/config")


def _engine(ws: Path, server: AgentServer) -> Engine:
    assert probe().ok, f"bubblewrap cannot run here: {probe().reason}"
    s = settings(workspace=str(ws), save_sessions=False, approval="auto", checkpoints=False)
    return Engine(s, bus=EventBus(), transport=server.transport(),
                  tool_settings=ToolSettings(workspace=ws, sandbox="workspace-write"))


def _shell(call_id: str, command: str) -> dict:
    return fn_call(f"fc_{call_id}", call_id, "shell", {"command": command, "workdir": None, "timeout_ms": 30_000,
                                                       "justification": None, "outside_sandbox": None})


async def _exists(path: Path) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        await asyncio.sleep(0.02)


def _outputs(engine: Engine, server: AgentServer, task: str) -> str:
    (body,) = [b for b in server.bodies_of(task) if any(i.get("type") == "function_call_output" for i in b["input"])]
    return "".join(str(i["output"]) for i in body["input"] if i.get("type") == "function_call_output")


async def test_a_command_that_started_while_a_plant_was_asked_about_neither_asks_again_nor_puts_it_back(tmp_path):
    """The planter's question is open when the other subagent's command starts (its walk
    sees the planted repository); the user says no and it is undone. The other command's
    end must not ask about the repository "removed", nor, told no, write its config back."""
    ws = tmp_path / "ws"
    ws.mkdir()
    planter_asked = asyncio.Event()
    server = AgentServer({})
    server.scripts.update({
        PROMPT: [fn_call_response("r1", spawn("call_p", "plant", name="planter"), spawn("call_w", "wait", name="w")),
                 answer("r2", "done")],
        "plant": [fn_call_response("rp1", _shell("call_sp", PLANT)), answer("rp2", "planted")],
        "wait": [_after(planter_asked, fn_call_response("rw1", _shell("call_sw", "touch w.started; "
                                                                        "while [ -e x/HEAD ]; do sleep 0.02; done"))),
                 answer("rw2", "waited")],
    })
    engine = _engine(ws, server)
    asked: list[ApprovalRequested] = []

    async def front_end(event: ApprovalRequested) -> None:
        asked.append(event)
        if event.subagent == "planter":
            planter_asked.set()
            await _exists(ws / "w.started")  # the other command runs, having seen the repository
        event.answer(Decision.NO)

    engine.approvals.attach(front_end)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "done"
    assert [(e.subagent, e.request.title) for e in asked] == [
        ("planter", "keep what the command wrote: created x")], [e.request.title for e in asked]
    assert not (ws / "x").exists() and not (ws / "pwned").exists()
    assert "protected" not in _outputs(engine, server, "wait")
    assert "rivulet undid them" in _outputs(engine, server, "plant")


async def test_a_plant_found_at_another_commands_end_names_the_command_running_at_once(tmp_path):
    """The other command ends first, after the plant, while the planter still runs: its end
    finds the repository. Asked once, and the question and its output say that it, or the
    command running at the same time, made it (before: blamed on it alone)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_p", "plant", name="planter"), spawn("call_w", "wait", name="w")),
                 answer("r2", "done")],
        "plant": [fn_call_response("rp1", _shell("call_sp", "while [ ! -e w.started ]; do sleep 0.02; done; "
                                                  f"{PLANT}; while [ -e x/HEAD ]; do sleep 0.02; done")),
                  answer("rp2", "planted")],
        "wait": [fn_call_response("rw1", _shell("call_sw", "touch w.started; "
                                                "while [ ! -e x/config ]; do sleep 0.02; done")),
                 answer("rw2", "waited")],
    })
    engine = _engine(ws, server)
    asked: list[ApprovalRequested] = []

    def front_end(event: ApprovalRequested) -> None:
        asked.append(event)
        event.answer(Decision.NO)

    engine.approvals.attach(front_end)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "done"
    assert [e.subagent for e in asked] == ["w"]
    (question,) = asked
    assert "running at the same time" in (question.request.reason or "")
    assert "while [ ! -e w.started ]" in (question.request.reason or "")  # the planter's command, named
    told = _outputs(engine, server, "wait")
    assert "or a command running at the same time" in told and "rivulet undid them" in told
    assert "protected" not in _outputs(engine, server, "plant")
    assert not (ws / "x").exists() and not (ws / "pwned").exists()


def _after(event: asyncio.Event, reply: bytes):
    """A reply sent once `event` is set."""

    async def stream():
        await event.wait()
        yield reply

    return stream


async def test_a_protected_patch_the_user_approved_is_not_asked_about_again_by_a_command_running_at_once(tmp_path):
    """One subagent's patch adds `.vscode/settings.json` (asked, approved) while another's
    sandboxed command runs: that command's end must not ask about it again, nor undo it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    patch = "*** Begin Patch\n*** Add File: .vscode/settings.json\n+{}\n*** End Patch\n"
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_c", "run", name="runner"), spawn("call_e", "edit", name="editor")),
                 answer("r2", "done")],
        "run": [fn_call_response("rc1", _shell("call_sc", "touch c.started; "
                                               "while [ ! -e .vscode/settings.json ]; do sleep 0.02; done")),
                answer("rc2", "ran")],
        "edit": [_when(ws / "c.started", body([created("re1"), *custom_call_events("fe", "call_pe", "apply_patch", patch),
                                                completed([custom_call("fe", "call_pe", "apply_patch", patch)], "re1")])),
                 answer("re2", "edited")],
    })
    engine = _engine(ws, server)
    asked: list[ApprovalRequested] = []

    def front_end(event: ApprovalRequested) -> None:
        asked.append(event)
        event.answer(Decision.YES if event.subagent == "editor" else Decision.NO)

    engine.approvals.attach(front_end)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "done"
    assert [(e.subagent, e.request.kind) for e in asked] == [("editor", "patch")], [e.request.title for e in asked]
    assert (ws / ".vscode" / "settings.json").read_text() == "{}\n"
    assert "protected" not in _outputs(engine, server, "run")


def _when(path: Path, reply: bytes):
    """A reply sent once `path` exists."""

    async def stream():
        await _exists(path)
        yield reply

    return stream


async def test_a_change_an_unsandboxed_command_made_beside_a_sandboxed_one_names_it(tmp_path):
    """A subagent's command run outside the sandbox (asked, allowed) creates `.vscode/`
    while another's sandboxed command runs, and ends first. The sandboxed command's end
    finds it: its question names the command outside the sandbox (before: blamed on the
    sandboxed command alone, since the other had ended)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = fn_call("fc_u", "call_su", "shell", {
        "command": "while [ ! -e w.started ]; do sleep 0.02; done; mkdir -p .vscode && echo '{}' > .vscode/tasks.json",
        "workdir": None, "timeout_ms": 30_000, "justification": None, "outside_sandbox": True})
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_u", "outside", name="u"), spawn("call_w", "wait", name="w")),
                 answer("r2", "done")],
        "outside": [fn_call_response("ru1", outside), answer("ru2", "made it")],
        "wait": [fn_call_response("rw1", _shell("call_sw", "touch w.started; "
                                                "while [ ! -e .vscode/tasks.json ]; do sleep 0.02; done")),
                 answer("rw2", "waited")],
    })
    engine = _engine(ws, server)
    asked: list[ApprovalRequested] = []

    def front_end(event: ApprovalRequested) -> None:
        asked.append(event)
        event.answer(Decision.YES if event.subagent == "u" else Decision.NO)

    engine.approvals.attach(front_end)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "done"
    assert [e.subagent for e in asked] == ["u", "w"], [e.request.title for e in asked]
    reason = asked[1].request.reason or ""
    assert "running at the same time" in reason and "outside the sandbox: while [ ! -e w.started ]" in reason, reason
