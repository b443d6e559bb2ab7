"""Issue 41 where features meet: subagents running at once with undo (checkpoints and
`rivulet undo`), hooks, and a second rivulet in the same workspace. Each against the
scripted AgentServer (tests/helpers/agent_server.py) on the real engine."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.agent_server import AgentServer, spawn
from helpers.calls import answer, custom_call, custom_call_events, fn_call, fn_call_response
from helpers.mock_api import settings, transport_for
from helpers.streams import body, completed, created

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.turn_lock import TurnLock
from rivulet.core.engine import Engine
from rivulet.core.hooks.dispatch import Hooks
from rivulet.core.hooks.events import HookNote
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.subagents.events import SubagentEvent, SubagentStarted
from rivulet.core.tools.router import ToolSettings
from rivulet.core.turn.bus import EventBus, ItemCompleted, Notice

PROMPT = "split the work"
TASKS = ("edit a", "add b", "write c")


def _engine(ws: Path, server: AgentServer, writer: SessionWriter | None = None, **kw) -> Engine:
    kw.setdefault("approval", "never-ask")
    s = settings(workspace=str(ws), save_sessions=False, **kw)
    return Engine(s, bus=EventBus(), transport=server.transport(), tool_settings=ToolSettings(workspace=ws),
                  writer=writer)


def _shell(call_id: str, command: str) -> dict:
    return fn_call(f"fc_{call_id}", call_id, "shell", {"command": command, "workdir": None, "timeout_ms": 30_000,
                                                       "justification": None, "outside_sandbox": None})


def _patch(rid: str, call_id: str, text: str) -> bytes:
    call = custom_call(f"f_{call_id}", call_id, "apply_patch", text)
    return body([created(rid), *custom_call_events(f"f_{call_id}", call_id, "apply_patch", text),
                 completed([call], rid)])


def _when_all_arrived(server: AgentServer, reply: bytes):
    """A reply sent once every subagent's first request has arrived: their tools run at once."""

    async def stream():
        await asyncio.gather(*(server.arrived[t].wait() for t in TASKS))
        yield reply

    return stream


def _three_at_once(server: AgentServer) -> None:
    server.scripts.update({
        PROMPT: [fn_call_response("r1", *(spawn(f"call_{n}", t) for n, t in enumerate(TASKS))), answer("r2", "done")],
        "edit a": [_when_all_arrived(server, _patch("ra1", "call_pa", "*** Begin Patch\n*** Update File: a.txt\n"
                                                                       "-a0\n+a1\n*** End Patch\n")),
                   answer("ra2", "a edited")],
        "add b": [_when_all_arrived(server, _patch("rb1", "call_pb", "*** Begin Patch\n*** Add File: b.txt\n+b1\n"
                                                                      "*** End Patch\n")),
                  answer("rb2", "b added")],
        "write c": [_when_all_arrived(server, fn_call_response("rc1", _shell("call_sc", "echo c1 > c.txt"))),
                    answer("rc2", "c written")],
    })
    server.arrived.update({k: asyncio.Event() for k in server.scripts})


async def test_undo_puts_back_what_three_subagents_changed_at_once_and_rivulet_undo_lists_it(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("a0\n")
    (ws / "c.txt").write_text("c0\n")
    server = AgentServer({})
    _three_at_once(server)
    writer, _ = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path / "sessions")
    engine = _engine(ws, server, writer=writer, sandbox="off")
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    cps = engine.agent_tools.checkpoints
    assert cps is not None
    cp = cps.wait()
    await engine.aclose()
    assert result.last_message == "done"
    assert [(ws / f).read_text() for f in ("a.txt", "b.txt", "c.txt")] == ["a1\n", "b1\n", "c1\n"]
    assert cp is not None and {c.path: c.what() for c in cp.changes} == {
        "a.txt": "modified", "b.txt": "created", "c.txt": "modified"}
    listed = subprocess.run([sys.executable, "-m", "rivulet.app", "undo", "--workspace", str(ws), "--dry-run"],
                            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                            env={**os.environ, "RIVULET_CONFIG": os.devnull})
    assert listed.returncode == 0, listed.stderr
    assert "Undo the files of turn 1: 3 paths to put back" in listed.stdout, listed.stdout
    assert all(f in listed.stdout for f in ("a.txt", "b.txt", "c.txt"))
    with cps.store.locked():
        plan = restore.plan(cps.store, restore.undoable(cps.store, cps.session), "undo")
        restore.apply(cps.store, plan)
    assert (ws / "a.txt").read_text() == "a0\n" and not (ws / "b.txt").exists()
    assert (ws / "c.txt").read_text() == "c0\n"


LOG = ("import json,sys; e=json.load(sys.stdin); "
       "open(sys.argv[1],'a').write(e['event']+' '+((e.get('tool') or {}).get('name') or '')+chr(10))")


async def test_tool_hooks_fire_for_every_call_of_the_subagents_and_turn_hooks_once_for_the_users_turn(tmp_path):
    """The before_tool/after_tool hooks see each subagent's calls (the subagent is the
    model too) and the spawn_agent calls themselves (before: never, so a hook could neither
    see nor block a subagent); turn_start/turn_end fire once, for the user's turn."""
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "events"
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "one"), spawn("call_b", "two")), answer("r2", "done")],
        "one": [fn_call_response("ra1", _shell("call_sa", "echo one")), answer("ra2", "did one")],
        "two": [fn_call_response("rb1", _shell("call_sb", "echo two")), answer("rb2", "did two")],
    })
    hooks = Hooks([HookSpec(e, (sys.executable, "-c", LOG, str(log)))
                   for e in ("turn_start", "before_tool", "after_tool", "turn_end")], ws, bus := EventBus())
    s = settings(workspace=str(ws), save_sessions=False, approval="never-ask", sandbox="off")
    engine = Engine(s, bus=bus, transport=server.transport(), tool_settings=ToolSettings(workspace=ws),
                    hooks=hooks)
    notes: list[HookNote] = []
    engine.bus.subscribe(notes.append, HookNote)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "done"
    events = log.read_text().splitlines()
    assert notes == []  # no hook failed (killed by a command's end)
    assert events[0] == "turn_start " and events[-1] == "turn_end "
    assert sorted(events[1:-1]) == sorted(["before_tool spawn_agent", "before_tool spawn_agent",
                                           "before_tool shell", "before_tool shell", "after_tool shell",
                                           "after_tool shell", "after_tool spawn_agent", "after_tool spawn_agent"])


async def test_a_before_tool_hook_that_exits_2_keeps_a_subagent_from_starting(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    server = AgentServer({PROMPT: [fn_call_response("r1", spawn("call_a", "one")), answer("r2", "no helper")],
                          "one": [answer("ra", "never")]})
    block = "import sys; sys.stderr.write('no subagents today'); sys.exit(2)"
    hooks = Hooks([HookSpec("before_tool", (sys.executable, "-c", block), tools=("spawn_agent",))], ws)
    s = settings(workspace=str(ws), save_sessions=False, approval="never-ask", sandbox="off")
    engine = Engine(s, bus=EventBus(), transport=server.transport(), tool_settings=ToolSettings(workspace=ws),
                    hooks=hooks)
    started: list[SubagentStarted] = []
    engine.bus.subscribe(started.append, SubagentStarted)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "no helper"
    assert not server.bodies_of("one") and not started
    (out,) = [i for i in server.bodies_of(PROMPT)[1]["input"] if i.get("type") == "function_call_output"]
    assert out["output"] == "A hook of the user blocked this call; it did not run. The hook said: no subagents today"


async def test_a_subagents_command_that_ends_does_not_kill_another_subagents_command_still_running(tmp_path):
    """When a command ends, what it left behind is killed (core/tools/proctree.py): every
    child of rivulet started since it began was taken for its orphan, so the command of
    another subagent that started after it was killed too (exit -9, its work cut off)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "first"), spawn("call_b", "second")), answer("r2", "done")],
        "first": [fn_call_response("ra1", _shell("call_sa", "while [ ! -e b.started ]; do sleep 0.02; done; "
                                                 "echo a-finished")), answer("ra2", "first done")],
        "second": [fn_call_response("rb1", _shell("call_sb", "touch b.started; "
                                                  "while [ ! -e a.ended ]; do sleep 0.02; done; echo b-finished")),
                   answer("rb2", "second done")],
    })
    engine = _engine(ws, server, sandbox="off")

    def on_event(event: SubagentEvent) -> None:  # the first command's output is in: it has ended
        inner = event.event
        if isinstance(inner, ItemCompleted) and inner.item.get("call_id") == "call_sa" \
                and inner.item.get("type") == "function_call_output":
            (ws / "a.ended").touch()

    engine.bus.subscribe(on_event, SubagentEvent)
    result = await asyncio.wait_for(engine.submit(PROMPT), 60)
    await engine.aclose()
    assert result.last_message == "done"
    outputs = {i["call_id"]: i["output"] for b in server.bodies for i in b["input"]
               if i.get("type") == "function_call_output" and i["call_id"] in ("call_sa", "call_sb")}
    assert outputs["call_sa"].startswith("Exit code: 0") and "a-finished" in outputs["call_sa"]
    assert outputs["call_sb"].startswith("Exit code: 0") and "b-finished" in outputs["call_sb"], outputs["call_sb"]


@pytest.mark.parametrize("checkpoints", [True, False])
async def test_subagents_wait_for_another_rivulet_in_the_workspace_together_and_say_it_once(tmp_path, checkpoints):
    """Another rivulet holds the workspace (issue 36's lock). Two subagents' commands wait
    for it, said once; none runs before it lets go; then both run (the children share the
    parent's lock: no deadlock with their own parent), and the turn's end lets it go."""
    ws = tmp_path / "ws"
    ws.mkdir()
    other = TurnLock(ws, "OTHER")  # the other rivulet (an exec), its turn under way
    assert other.try_hold() is None
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "one"), spawn("call_b", "two")), answer("r2", "done")],
        "one": [fn_call_response("ra1", _shell("call_sa", "echo one > one.txt")), answer("ra2", "did one")],
        "two": [fn_call_response("rb1", _shell("call_sb", "echo two > two.txt")), answer("rb2", "did two")],
    })
    engine = _engine(ws, server, sandbox="off", checkpoints=checkpoints)
    notices: list[str] = []
    engine.bus.subscribe(lambda e: notices.append(e.text), Notice)
    calls: set[str] = set()

    def on_event(event: SubagentEvent) -> None:
        if isinstance(event.event, ItemCompleted) and event.event.item.get("type") == "function_call":
            calls.add(event.event.item["call_id"])

    engine.bus.subscribe(on_event, SubagentEvent)
    turn = asyncio.ensure_future(engine.submit(PROMPT))
    deadline = time.monotonic() + 30
    while not (calls == {"call_sa", "call_sb"} and notices) and not turn.done():
        assert time.monotonic() < deadline, (calls, notices)
        await asyncio.sleep(0.02)
    for _ in range(20):  # the loop goes round: still nobody runs while the other holds the workspace
        await asyncio.sleep(0)
    assert not (ws / "one.txt").exists() and not (ws / "two.txt").exists() and not turn.done()
    other.release()
    result = await asyncio.wait_for(turn, 60)
    cps = engine.agent_tools.checkpoints
    if cps is not None:
        cps.wait()
    await engine.aclose()
    assert result.last_message == "done"
    assert (ws / "one.txt").read_text() == "one\n" and (ws / "two.txt").read_text() == "two\n"
    waiting = [n for n in notices if n.startswith("Waiting: another rivulet")]
    assert len(waiting) == 1, notices
    assert "session OTHER" in waiting[0]
    assert other.try_hold() is None  # the turn's end let the workspace go
    other.release()


async def test_quitting_while_subagents_run_in_background_mode_loses_nothing_and_resumes(tmp_path):
    """`background = true`: the parent's responses run in the background, its subagents in
    the foreground (they share its transport). Quitting while they run (the turn task
    cancelled, no explicit cancel) leaves no background response to re-attach to (the
    parent's had ended), records every item the subagents committed and both calls
    aborted; the session loads clean and the next turn goes on from it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    never = asyncio.Event()
    server = AgentServer({})
    server.scripts.update({
        PROMPT: [fn_call_response("r1", spawn("call_a", "work", name="worker"), spawn("call_b", "hang")),
                 answer("r2", "never")],
        "work": [fn_call_response("ra1", _shell("call_sw", "echo w > w.txt")),
                 server.gated("ra2", "late", never.wait, "work")],
        "hang": [server.gated("rb", "late", never.wait, "hang")],
    })
    server.arrived.update({k: asyncio.Event() for k in server.scripts})
    writer, _ = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path / "sessions")
    engine = Engine(settings(workspace=str(ws), save_sessions=False, approval="never-ask", sandbox="off",
                             background=True), bus=EventBus(), transport=transport_for(server.handler, background=True),
                    tool_settings=ToolSettings(workspace=ws), writer=writer)
    turn = asyncio.ensure_future(engine.submit(PROMPT))
    async with asyncio.timeout(30):  # the worker's command ran and its follow-up streams; the other streams
        while not (len(server.bodies_of("work")) == 2 and server.bodies_of("hang")):
            await asyncio.sleep(0.02)
    assert server.bodies_of(PROMPT)[0].get("background") is True
    assert all("background" not in b for t in ("work", "hang") for b in server.bodies_of(t))
    turn.cancel()  # the quit: the app cancels the turn's task
    with pytest.raises(asyncio.CancelledError):
        await turn
    await engine.aclose()
    session = load_session(writer.path)
    assert not session.warnings and session.background is None
    worker = session.subagent_items["call_a"]  # what it committed, then its turn's interrupt (as a conversation's)
    assert [(i.get("type"), i.get("role")) for i in worker] == [
        ("message", "user"), ("function_call", None), ("function_call_output", None), ("message", "user")]
    assert "<turn_aborted>" in worker[-1]["content"][0]["text"] and "late" not in json.dumps(worker)
    assert [(i.get("type"), i.get("role")) for i in session.subagent_items["call_b"]] == [("message", "user")]
    outputs = {i["call_id"]: i["output"] for i in session.history.items if i.get("type") == "function_call_output"}
    assert outputs == {"call_a": "aborted: the user interrupted the turn",
                       "call_b": "aborted: the user interrupted the turn"}
    assert (ws / "w.txt").read_text() == "w\n"
    again = AgentServer({PROMPT: [answer("r3", "going on")]})  # (keyed by the first user message: the resumed one)
    resumed = Engine(settings(workspace=str(ws), save_sessions=False, approval="never-ask", sandbox="off",
                              background=True), bus=EventBus(), transport=again.transport(),
                     tool_settings=ToolSettings(workspace=ws), session=session)
    result = await asyncio.wait_for(resumed.submit("go on"), 30)
    await resumed.aclose()
    assert result.last_message == "going on"
    sent = [i for i in again.bodies[0]["input"] if i.get("type") == "function_call_output"]
    assert {i["call_id"] for i in sent} == {"call_a", "call_b"}
