"""The engine as a front end without Textual uses it: one assembly of the conversation,
an approval asked on the bus and answered through its future by the asker attached,
interrupt, /new."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.calls import answer, fn_call, fn_call_response, sent_inputs
from helpers.mock_api import serving, settings

from rivulet.core.engine import Engine, Notices
from rivulet.core.tools.approval import Decision
from rivulet.core.tools.approval_event import ApprovalRequested
from rivulet.core.tools.router import ToolSettings
from rivulet.core.turn.bus import EventBus, ItemCompleted, Notice

SHELL = fn_call("fc_1", "call_1", "shell", {"command": "touch made-by-the-model", "workdir": None,
                                             "timeout_ms": 5000})


def _engine(tmp_path, *bodies: bytes, requests: list | None = None, **kw) -> Engine:
    s = settings(approval="ask", workspace=str(tmp_path), save_sessions=False)
    return Engine(s, transport=serving(*bodies, requests=requests), tool_settings=ToolSettings(workspace=tmp_path),
                  **kw)


async def test_an_approval_is_a_request_on_the_bus_that_the_front_end_answers(tmp_path):
    requests: list = []
    engine = _engine(tmp_path, fn_call_response("r1", SHELL), answer("r2", "I did not run it."), requests=requests)
    asked: list[ApprovalRequested] = []

    def front_end(event):  # a line-mode front end: it sees the question and answers it
        asked.append(event)
        assert event.answer(Decision.NO)

    engine.approvals.attach(front_end)
    engine.start()
    result = await engine.submit("make a file")
    await engine.aclose()
    assert [e.request.title for e in asked] == ["touch made-by-the-model"]
    assert asked[0].to_json()["type"] == "approval.requested"
    assert not (tmp_path / "made-by-the-model").exists()  # declined: nothing ran
    output = next(i for i in sent_inputs(requests)[1] if i.get("type") == "function_call_output")
    assert output["output"].startswith("The user declined to run this command; it did not run.")
    assert result.last_message == "I did not run it."
    assert not asked[0].answer(Decision.YES)  # answered once: a second answer is dropped


async def test_interrupt_while_a_question_is_open_cancels_the_turn_and_its_question(tmp_path):
    engine = _engine(tmp_path, fn_call_response("r1", SHELL), answer("r2", "never sent"))
    asked: list[ApprovalRequested] = []
    engine.approvals.attach(asked.append)  # attached, and never answering
    turn = asyncio.ensure_future(engine.submit("make a file"))
    while not asked:  # the question is on the bus; nobody answers it
        await asyncio.sleep(0)
    assert engine.interrupt()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert asked[0].decision.cancelled()
    assert not asked[0].answer(Decision.YES)  # too late: nothing waits for it
    assert not (tmp_path / "made-by-the-model").exists()
    assert not engine.interrupt()  # nothing runs now
    await engine.aclose()


async def test_new_conversation_keeps_the_tools_and_starts_an_empty_history(tmp_path):
    engine = _engine(tmp_path, answer("r1", "first"), answer("r2", "second"))
    tools = engine.tools
    await engine.submit("one")
    old = engine.conversation
    assert len(old.history.entries) == 2
    new = engine.new_conversation(None)
    assert new is engine.conversation and new is not old
    assert new.history.entries == [] and new.tools is tools
    result = await engine.submit("two")
    assert result.last_message == "second"
    await engine.aclose()


async def test_the_transport_fallback_notice_reaches_the_bus_of_the_engine_built_later():
    notices = Notices()
    notices("before any bus: held until the engine binds it (the chat's boot says what it recovered)")
    bus = EventBus()
    seen: list = []
    bus.subscribe(seen.append, Notice)
    engine = Engine(settings(save_sessions=False), bus=bus, transport=serving(answer("r1", "x")), notices=notices)
    notices("WebSocket unavailable; using HTTP streaming (SSE) for this session")
    await bus.drain()
    assert [n.text for n in seen] == [
        "before any bus: held until the engine binds it (the chat's boot says what it recovered)",
        "WebSocket unavailable; using HTTP streaming (SSE) for this session"]
    await engine.aclose()


async def test_set_model_and_effort_apply_from_the_next_request(tmp_path):
    requests: list = []
    engine = _engine(tmp_path, answer("r1", "a"), requests=requests)
    engine.set_model("other-model")
    engine.set_effort("high")
    committed: list = []
    engine.bus.subscribe(committed.append, ItemCompleted)
    await engine.submit("hi")
    sent = json.loads(requests[0].content)
    assert sent["model"] == "other-model" and sent["reasoning"]["effort"] == "high"
    await engine.aclose()


async def test_the_first_walk_of_the_workspace_waits_for_the_first_call_of_a_tool(tmp_path):
    """A turn that runs no tool never walks the workspace (exec's first request does not
    wait for it); the first call the model starts begins the walk, before the tool runs."""
    engine = _engine(tmp_path, answer("r1", "no tool"), fn_call_response("r2", SHELL), answer("r3", "done"))
    checkpoints = engine.agent_tools.checkpoints
    real_warm, warmed = checkpoints.warm, []

    def warm():
        warmed.append((tmp_path / "made-by-the-model").exists())  # has the tool run yet?
        real_warm()

    checkpoints.warm = warm
    engine.approvals.attach(lambda e: e.answer(Decision.YES))
    engine.start()
    await engine.submit("just answer")
    await engine.bus.drain()
    assert warmed == [] and not checkpoints.store.dir.exists()  # no walk, nothing stored
    await engine.submit("make a file")
    await engine.aclose()
    assert warmed == [False]  # once, before the tool ran
    assert [c.path for c in checkpoints.wait().changes] == ["made-by-the-model"]  # its checkpoint as before
