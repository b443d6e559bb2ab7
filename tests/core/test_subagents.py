"""Issue 41: subagents. The model's `spawn_agent` calls run as child conversations of the
same engine, at once, each from its task alone; outputs in call order; approvals labelled;
cancel stops all; a failure is the call's output; depth; undo; session; costs."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.agent_server import AgentServer, spawn
from helpers.calls import answer, fn_call, fn_call_response
from helpers.mock_api import settings

from rivulet.core.checkpoints import restore
from rivulet.core.engine import Engine
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.tools.approval import Decision
from rivulet.core.tools.approval_event import ApprovalRequested
from rivulet.core.tools.router import ToolSettings
from rivulet.core.turn.bus import BusEvent, EventBus, ItemCompleted, ToolOutputDelta, TurnDiffUpdated

PROMPT = "split the work"


def _engine(tmp_path, server: AgentServer, writer=None, **kw) -> Engine:
    kw.setdefault("approval", "ask")
    ws = tmp_path / "ws"  # (the sessions and checkpoints are in tmp_path, outside it)
    ws.mkdir(exist_ok=True)
    s = settings(workspace=str(ws), save_sessions=False, **kw)
    return Engine(s, bus=EventBus(), transport=server.transport(), tool_settings=ToolSettings(workspace=ws),
                  writer=writer)


def _outputs(body: dict) -> list[dict]:
    return [i for i in body["input"] if i.get("type") == "function_call_output"]


def _tool_names(body: dict) -> list[str]:
    return [str(t.get("name")) for t in body.get("tools", [])]


async def test_two_calls_run_at_once_each_from_its_task_alone_and_answer_in_call_order(tmp_path):
    server = AgentServer({})
    server.scripts.update({
        PROMPT: [fn_call_response("r1", spawn("call_a", "count the tests", name="tests"),
                                  spawn("call_b", "read the docs")),
                 answer("r2", "both done")],
        # alpha streams, and ends only once beta's request has arrived (and beta has ended)
        "count the tests": [server.gated("ra", "there are 12 tests", lambda: _both(server), "alpha")],
        "read the docs": [answer("rb", "the docs are fine")],
    })
    server.arrived.update({k: asyncio.Event() for k in server.scripts})
    engine = _engine(tmp_path, server)
    seen: list[BusEvent] = []
    engine.bus.subscribe(seen.append)
    result = await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.bus.drain()
    await engine.aclose()
    assert result.last_message == "both done"
    # the second subagent's request came while the first's answer was still streaming
    assert server.log.index("request read the docs") < server.log.index("end alpha")
    # each subagent's request holds its task only: not the parent's prompt, nor its history
    for task in ("count the tests", "read the docs"):
        (sent,) = server.bodies_of(task)
        assert [i.get("role") for i in sent["input"]] == ["user"]
        assert PROMPT not in json.dumps(sent)
        assert "spawn_agent" not in _tool_names(sent)  # depth 1: none inside a subagent
        assert "shell" in _tool_names(sent)
    # the follow-up carries both outputs in call order (beta ended first)
    follow_up = server.bodies_of(PROMPT)[1]
    assert [(o["call_id"], o["output"]) for o in _outputs(follow_up)] == [
        ("call_a", "there are 12 tests"), ("call_b", "the docs are fine")]
    started = [e for e in seen if isinstance(e, SubagentStarted)]
    assert [(e.subagent, e.call_id, e.name, e.task) for e in started] == [
        ("sa-1", "call_a", "tests", "count the tests"), ("sa-2", "call_b", "agent 2", "read the docs")]
    ended = {e.subagent: e for e in seen if isinstance(e, SubagentEnded)}
    assert {k: (e.status, e.answer) for k, e in ended.items()} == {
        "sa-1": ("completed", "there are 12 tests"), "sa-2": ("completed", "the docs are fine")}
    relayed = [e for e in seen if isinstance(e, SubagentEvent)]
    assert any(isinstance(e.event, ItemCompleted) and e.subagent == "sa-1" for e in relayed)
    # the relayed events of each come after its start and before its end
    for sid in ("sa-1", "sa-2"):
        at = [n for n, e in enumerate(seen) if getattr(e, "subagent", None) == sid]
        assert isinstance(seen[at[0]], SubagentStarted) and isinstance(seen[at[-1]], SubagentEnded)
    # costs: the subagents' tokens are in the turn's, and apart
    cost = engine.conversation.last_cost
    assert cost is not None and cost["subagents"]["count"] == 2
    assert cost["subagents"]["input_tokens"] == 6 and cost["input"] == 3 * 2 + 6


async def _both(server: AgentServer) -> None:
    await server.arrived["read the docs"].wait()


async def test_a_failing_subagent_is_its_calls_output_and_the_parent_goes_on(tmp_path):
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "break")), answer("r2", "it failed, sorry")],
        "break": [b"event: error\ndata: {\"type\": \"error\", \"code\": \"bad\", \"message\": \"the model broke\"}\n\n"],
    })
    engine = _engine(tmp_path, server, max_retries=0)
    seen: list[BusEvent] = []
    engine.bus.subscribe(seen.append, SubagentEnded)
    result = await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.bus.drain()
    await engine.aclose()
    assert result.last_message == "it failed, sorry"
    (output,) = _outputs(server.bodies_of(PROMPT)[1])
    assert output["output"].startswith("The subagent 'agent 1' failed: ")
    assert "the model broke" in output["output"]
    assert [(e.status, e.answer is None, bool(e.error)) for e in seen] == [("failed", True, True)]


async def test_a_subagent_that_needs_approval_asks_with_its_name(tmp_path):
    shell = fn_call("fc_s", "call_s", "shell", {"command": "echo hi | tee made.txt", "workdir": None,
                                               "timeout_ms": 5000, "justification": None,
                                               "outside_sandbox": None})
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "make a file", name="maker")), answer("r2", "done")],
        "make a file": [fn_call_response("ra1", shell), answer("ra2", "made it")],
    })
    engine = _engine(tmp_path, server, sandbox="off")
    asked: list[ApprovalRequested] = []

    def front_end(event: ApprovalRequested) -> None:
        asked.append(event)
        event.answer(Decision.YES)

    engine.approvals.attach(front_end)
    deltas: list[SubagentEvent] = []
    engine.bus.subscribe(deltas.append, SubagentEvent)
    result = await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.bus.drain()
    await engine.aclose()
    assert [(e.subagent, e.request.title) for e in asked] == [("maker", "echo hi | tee made.txt")]
    assert asked[0].to_json()["subagent"] == "maker"
    assert (tmp_path / "ws" / "made.txt").read_text() == "hi\n"
    assert result.last_message == "done"
    assert _outputs(server.bodies_of(PROMPT)[1])[0]["output"] == "made it"
    relayed_calls = [e.event.item["call_id"] for e in deltas
                     if isinstance(e.event, ItemCompleted) and e.event.item.get("type") == "function_call"]
    assert relayed_calls == ["call_s"]
    assert any(isinstance(e.event, ToolOutputDelta) and e.event.call_id == "call_s" for e in deltas)


async def test_interrupt_cancels_every_running_subagent(tmp_path):
    never = asyncio.Event()
    server = AgentServer({})
    server.scripts.update({
        PROMPT: [fn_call_response("r1", spawn("call_a", "wait one"), spawn("call_b", "wait two")),
                 answer("r2", "never")],
        "wait one": [server.gated("ra", "one", never.wait, "one")],
        "wait two": [server.gated("rb", "two", never.wait, "two")],
    })
    server.arrived.update({k: asyncio.Event() for k in server.scripts})
    engine = _engine(tmp_path, server)
    ended: list[SubagentEnded] = []
    engine.bus.subscribe(ended.append, SubagentEnded)
    turn = asyncio.ensure_future(engine.submit(PROMPT))
    await asyncio.wait_for(asyncio.gather(server.arrived["wait one"].wait(), server.arrived["wait two"].wait()), 30)
    assert engine.interrupt()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await engine.bus.drain()
    await engine.aclose()
    assert sorted((e.subagent, e.status) for e in ended) == [("sa-1", "cancelled"), ("sa-2", "cancelled")]
    outputs = {it["call_id"]: it["output"] for it in engine.conversation.history.items
               if it.get("type") == "function_call_output"}
    assert outputs == {"call_a": "aborted: the user interrupted the turn",
                       "call_b": "aborted: the user interrupted the turn"}
    assert "end one" not in server.log and "end two" not in server.log


async def test_subagents_off_offers_no_tool(tmp_path):
    server = AgentServer({PROMPT: [answer("r1", "hello")]})
    engine = _engine(tmp_path, server, subagents=False)
    await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.aclose()
    assert "spawn_agent" not in _tool_names(server.bodies[0])
    on = AgentServer({PROMPT: [answer("r1", "hello")]})
    engine = _engine(tmp_path, on)
    await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.aclose()
    assert "spawn_agent" in _tool_names(on.bodies[0])


async def test_a_deeper_subagent_depth_offers_the_tool_inside(tmp_path):
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "delegate")), answer("r2", "done")],
        "delegate": [answer("ra", "delegated")],
    })
    engine = _engine(tmp_path, server, subagent_depth=2)
    await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.aclose()
    assert "spawn_agent" in _tool_names(server.bodies_of("delegate")[0])


def _shell_call(command: str, call_id: str = "call_s") -> dict:
    return fn_call(f"fc_{call_id}", call_id, "shell", {"command": command, "workdir": None, "timeout_ms": 5000,
                                                       "justification": None, "outside_sandbox": None})


async def test_undo_puts_back_what_a_subagent_changed_and_the_session_keeps_its_items(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "keep.txt").write_text("original\n")
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "edit files", name="editor")), answer("r2", "edited")],
        "edit files": [fn_call_response("ra1", _shell_call("echo sub > sub.txt; echo changed > keep.txt")),
                       answer("ra2", "files edited")],
    })
    writer, _ = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path / "sessions")
    engine = _engine(tmp_path, server, writer=writer, approval="never-ask", sandbox="off")
    await asyncio.wait_for(engine.submit(PROMPT), 30)
    cps = engine.agent_tools.checkpoints
    assert cps is not None
    cp = cps.wait()
    await engine.aclose()
    assert (ws / "sub.txt").read_text() == "sub\n" and (ws / "keep.txt").read_text() == "changed\n"
    # the parent turn's checkpoint holds what the subagent changed: /undo puts it back
    assert cp is not None and cp.turn == 1
    assert {c.path: c.what() for c in cp.changes} == {"sub.txt": "created", "keep.txt": "modified"}
    with cps.store.locked():
        plan = restore.plan(cps.store, restore.undoable(cps.store, cps.session), "undo")
        restore.apply(cps.store, plan)
    assert not (ws / "sub.txt").exists() and (ws / "keep.txt").read_text() == "original\n"
    # the session file holds the subagent's items under its call; the parent's history has none of them
    session = load_session(writer.path)
    items = session.subagent_items["call_a"]
    assert [(i.get("type"), i.get("role")) for i in items] == [
        ("message", "user"), ("function_call", None), ("function_call_output", None), ("message", "assistant")]
    assert session.subagents["call_a"] == ("sa-1", "editor")
    assert not session.warnings
    assert "edit files" not in [i.get("content", [{}])[0].get("text") for i in session.history.items
                                if i.get("type") == "message"]


async def _stopped_while_wait_streams(tmp_path, first_response: bytes, more: dict):
    """A turn whose first response is `first_response`, with a subagent on the task "wait"
    streaming (held open) when the user answers the turn's one question "no, and stop the
    turn"; returns the turn's result, the engine, the subagents' ends and the server."""
    never = asyncio.Event()
    server = AgentServer({})
    server.scripts.update({PROMPT: [first_response, answer("r2", "never")],
                           "wait": [server.gated("ra", "late", never.wait, "wait")], **more})
    server.arrived.update({k: asyncio.Event() for k in server.scripts})
    engine = _engine(tmp_path, server, sandbox="off")

    async def front_end(event: ApprovalRequested) -> None:
        await server.arrived["wait"].wait()  # the subagent is streaming when the user says stop
        event.answer(Decision.STOP)

    engine.approvals.attach(front_end)
    ended: list[SubagentEnded] = []
    engine.bus.subscribe(ended.append, SubagentEnded)
    result = await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.bus.drain()
    await engine.aclose()
    return result, engine, ended, server


async def test_the_user_stopping_the_turn_at_another_call_stops_the_running_subagent(tmp_path):
    result, engine, ended, server = await _stopped_while_wait_streams(
        tmp_path, fn_call_response("r1", spawn("call_a", "wait"), _shell_call("rm -rf build")), {})
    assert result.stopped and len(server.bodies_of(PROMPT)) == 1  # no follow-up
    outputs = [(i["call_id"], i["output"]) for i in engine.conversation.history.items
               if i.get("type") == "function_call_output"]
    assert [cid for cid, _ in outputs] == ["call_a", "call_s"]  # in call order
    assert outputs[0][1] == "aborted: the user stopped the turn"
    assert outputs[1][1].endswith("The user stopped the turn.")
    assert [(e.subagent, e.status) for e in ended] == [("sa-1", "cancelled")]


async def test_a_subagents_own_exception_is_its_calls_output_not_the_parents(tmp_path, monkeypatch):
    server = AgentServer({PROMPT: [fn_call_response("r1", spawn("call_a", "crash")), answer("r2", "went on")]})
    engine = _engine(tmp_path, server)

    def broken(*args, **kw):
        raise RuntimeError("a bug of its own")

    monkeypatch.setattr(engine, "_child", broken)
    engine.conversation.agents = engine._subagents(engine.conversation, 1)  # made with the broken factory
    result = await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.aclose()
    assert result.last_message == "went on"
    (output,) = _outputs(server.bodies_of(PROMPT)[1])
    assert output["output"].startswith("The subagent 'agent 1' failed: RuntimeError: a bug of its own.")


async def test_the_user_stopping_the_turn_at_a_subagents_question_stops_the_parents_turn(tmp_path):
    """"No, and stop the turn", answered to a subagent: the whole turn stops (no follow-up),
    the other running subagent is cancelled, and the outputs stay in call order."""
    result, engine, ended, server = await _stopped_while_wait_streams(
        tmp_path, fn_call_response("r1", spawn("call_a", "wait"), spawn("call_b", "ask", name="asker")),
        {"ask": [fn_call_response("rb1", _shell_call("rm -rf build", "call_x")), answer("rb2", "never")]})
    assert result.stopped and len(server.bodies_of(PROMPT)) == 1  # no follow-up
    assert len(server.bodies_of("ask")) == 1  # the asking subagent sent no follow-up either
    outputs = [(i["call_id"], i["output"]) for i in engine.conversation.history.items
               if i.get("type") == "function_call_output"]
    assert [cid for cid, _ in outputs] == ["call_a", "call_b"]  # in call order
    assert outputs[0][1] == "aborted: the user stopped the turn"
    assert outputs[1][1].startswith("The subagent 'asker' was stopped")
    assert sorted((e.subagent, e.status) for e in ended) == [("sa-1", "cancelled"), ("sa-2", "cancelled")]
    assert "end wait" not in server.log


async def test_how_each_subagent_ended_is_in_the_session_for_a_resume(tmp_path):
    """A failed subagent comes back failed, with its error, not as "done": the session
    records how each subagent ended (its items alone cannot say it)."""
    server = AgentServer({
        PROMPT: [fn_call_response("r1", spawn("call_a", "break", name="breaker"), spawn("call_b", "fine")),
                 answer("r2", "one failed")],
        "break": [b"event: error\ndata: {\"type\": \"error\", \"code\": \"bad\", \"message\": \"the model broke\"}\n\n"],
        "fine": [answer("rf", "all good")],
    })
    writer, _ = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path / "sessions")
    engine = _engine(tmp_path, server, writer=writer, max_retries=0)
    await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.aclose()
    writer.close()
    session = load_session(writer.path)
    assert not session.warnings
    status, error = session.subagent_ends["call_a"]
    assert status == "failed" and error is not None and "the model broke" in error
    assert session.subagent_ends["call_b"] == ("completed", None)
    assert session.subagents["call_a"] == ("sa-1", "breaker")

    from rivulet.widgets.subagent_pane import resumed_record

    calls = {i["call_id"]: i for i in session.history.items if i.get("type") == "function_call"}
    failed = resumed_record(calls["call_a"], None, session.subagent_items["call_a"], session.subagents["call_a"],
                            session.subagent_ends["call_a"])
    assert failed["status"] == "failed" and "the model broke" in failed["result"]


async def test_the_turns_diff_holds_what_its_subagents_patched(tmp_path):
    """/diff and ctrl+t show the turn's whole diff: the parent's patch and a subagent's made
    after it are both in it (a subagent's start never resets it), and the parent's bus says
    so unwrapped (before: only the parent's own patches)."""
    from helpers.calls import custom_call, custom_call_events
    from helpers.streams import body, completed, created

    def patching(rid: str, call_id: str, name: str, text: str) -> bytes:
        patch = f"*** Begin Patch\n*** Add File: {name}\n+{text}\n*** End Patch\n"
        return body([created(rid), *custom_call_events(f"f{rid}", call_id, "apply_patch", patch),
                     completed([custom_call(f"f{rid}", call_id, "apply_patch", patch)], rid)])

    server = AgentServer({
        PROMPT: [patching("r0", "call_own", "own.txt", "by the parent"),
                 fn_call_response("r1", spawn("call_a", "patch it")), answer("r2", "patched")],
        "patch it": [patching("ra1", "call_p", "made.txt", "by a subagent"), answer("ra2", "done")],
    })
    engine = _engine(tmp_path, server, approval="never-ask", sandbox="off")
    diffs: list[TurnDiffUpdated] = []
    engine.bus.subscribe(diffs.append, TurnDiffUpdated)
    await asyncio.wait_for(engine.submit(PROMPT), 30)
    await engine.bus.drain()
    await engine.aclose()
    assert (tmp_path / "ws" / "made.txt").read_text() == "by a subagent\n"
    assert diffs and "+by a subagent" in diffs[-1].diff and "+by the parent" in diffs[-1].diff
    assert diffs[-1].files == 2
    assert "+by the parent" in engine.agent_tools.turn_diff.unified()
