"""Issue 37, items 1 and 2: one assembly builds the conversation for every front end from
one typed `FrontEnd`, and an approval is a request with an id on the bus, answered by the
front end attached (by the event, or by id through the engine), declined at once when
none is attached, and given up when the turn is interrupted."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from helpers.calls import answer, fn_call, fn_call_response, sent_inputs
from helpers.mock_api import serving, settings

from rivulet.core.assembly import FrontEnd, Ground, NewSession, open_conversation, open_session, prepare
from rivulet.core.tools.approval import ApprovalRequest, Decision, deny_all
from rivulet.core.tools.approval_event import Answering, ApprovalRequested, BusApprover
from rivulet.core.tools.router import ToolSettings
from rivulet.core.turn.bus import BusEvent, EventBus

SHELL = fn_call("fc_1", "call_1", "shell", {"command": "touch made-by-the-model", "workdir": None,
                                             "timeout_ms": 5000})
DECLINED = "The user declined to run this command; it did not run."


def _ground(tmp_path, *bodies: bytes, requests: list | None = None) -> Ground:
    s = settings(approval="ask", workspace=str(tmp_path), save_sessions=False, checkpoints=False)
    return Ground(settings=s, tool_settings=ToolSettings(workspace=tmp_path), transport=serving(*bodies, requests=requests))


def _output(requests: list) -> str:
    return next(i for i in sent_inputs(requests)[1] if i.get("type") == "function_call_output")["output"]


async def test_a_question_has_an_id_and_the_front_end_attached_answers_it(tmp_path):
    requests: list = []
    asked: list[ApprovalRequested] = []

    def ask(event: ApprovalRequested) -> None:
        asked.append(event)
        event.answer(Decision.YES)

    engine = open_conversation(_ground(tmp_path, fn_call_response("r1", SHELL), answer("r2", "Made."),
                                       requests=requests), FrontEnd(name="test", asks=ask))
    result = await engine.submit("make a file")
    await engine.aclose()
    assert [e.id for e in asked] == ["approval-1"]
    assert asked[0].to_json()["id"] == "approval-1" and asked[0].request.title == "touch made-by-the-model"
    assert (tmp_path / "made-by-the-model").exists() and result.last_message == "Made."


async def test_the_engine_answers_a_question_by_its_id(tmp_path):
    requests: list = []
    asked: list[ApprovalRequested] = []
    engine = open_conversation(_ground(tmp_path, fn_call_response("r1", SHELL), answer("r2", "Not run."),
                                       requests=requests), FrontEnd(name="acp", asks=asked.append))
    turn = asyncio.ensure_future(engine.submit("make a file"))
    while not asked:
        await asyncio.sleep(0)
    assert not engine.answer("approval-9", Decision.YES)  # no question by that id
    assert engine.answer(asked[0].id, Decision.NO)
    assert not engine.answer(asked[0].id, Decision.YES)  # answered: not open any more
    await turn
    await engine.aclose()
    assert not (tmp_path / "made-by-the-model").exists()
    assert _output(requests).startswith(DECLINED)


async def test_with_no_front_end_attached_a_question_is_declined_at_once_and_never_published(tmp_path):
    requests: list = []
    bus = EventBus()
    seen: list[BusEvent] = []
    bus.subscribe(seen.append)  # a watcher of every event is not a front end that answers
    engine = open_conversation(_ground(tmp_path, fn_call_response("r1", SHELL), answer("r2", "Declined."),
                                       requests=requests), FrontEnd(name="exec", bus=bus))
    await engine.submit("make a file")
    await engine.aclose()
    await bus.drain()
    assert not any(isinstance(e, ApprovalRequested) for e in seen)
    assert not (tmp_path / "made-by-the-model").exists()
    assert _output(requests).startswith(DECLINED)


async def test_a_terminal_question_is_given_up_when_the_turn_is_interrupted(tmp_path):
    started, given_up = asyncio.Event(), asyncio.Event()

    async def on_the_terminal(request: ApprovalRequest) -> Decision:
        started.set()
        try:
            await asyncio.Event().wait()  # nobody types
        except asyncio.CancelledError:
            given_up.set()
            raise
        return Decision.YES

    engine = open_conversation(_ground(tmp_path, fn_call_response("r1", SHELL), answer("r2", "never")),
                               FrontEnd(name="exec", asks=Answering(on_the_terminal)))
    turn = asyncio.ensure_future(engine.submit("make a file"))
    await asyncio.wait_for(started.wait(), 10)
    assert engine.interrupt()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await asyncio.wait_for(given_up.wait(), 10)  # the prompt went with the question
    await engine.aclose()
    assert not (tmp_path / "made-by-the-model").exists()


async def test_a_question_that_fails_to_be_asked_is_declined(tmp_path):
    requests: list = []

    async def no_terminal(request: ApprovalRequest) -> Decision:
        raise OSError("no /dev/tty")

    engine = open_conversation(_ground(tmp_path, fn_call_response("r1", SHELL), answer("r2", "ok"),
                                       requests=requests), FrontEnd(name="plain", asks=Answering(no_terminal)))
    await engine.submit("make a file")
    await engine.aclose()
    assert _output(requests).startswith(DECLINED)


async def test_the_workspace_notes_go_where_the_front_end_says(tmp_path):
    """exec's notes are stderr lines, not bus notices: the front end's `notes` gets them."""
    notes: list[tuple[str, str]] = []
    s = settings(approval="never-ask", workspace=str(tmp_path), save_sessions=False)
    ground = Ground(settings=s, tool_settings=ToolSettings(workspace=tmp_path),
                    transport=serving(fn_call_response("r1", SHELL), answer("r2", "done")))
    engine = open_conversation(ground, FrontEnd(name="exec", notes=lambda text, severity: notes.append((text, severity))))
    tools = engine.agent_tools
    assert tools is not None and tools.checkpoints is not None and tools.turn_lock is not None
    tools.checkpoints.notice("a turn without a checkpoint")
    tools.turn_lock.notice("waiting for another rivulet")
    await engine.aclose()
    assert notes == [("a turn without a checkpoint", "information"), ("waiting for another rivulet", "information")]


def test_prepare_recovers_first_and_reads_the_tables_and_open_session_plans_the_file(tmp_path):
    said: list[str] = []
    s = settings(workspace=str(tmp_path), mcp_servers={"x": {"command": "true"}})
    ground = prepare(s, said.append)
    assert ground.tool_settings is not None and ground.tool_settings.workspace == tmp_path
    assert [c.name for c in ground.mcp_servers or []] == ["x"] and ground.hooks is not None
    assert said == []  # nothing to recover here
    session, writer = open_session(s, NewSession("exec"))
    assert session is None and writer is not None and writer.path is None  # no file until its first record
    assert open_session(s, None) == (None, None)


@pytest.mark.parametrize("approver", [BusApprover(EventBus()), deny_all])
async def test_every_approver_answers_as_its_protocol_says(approver):
    """An `Approver` (the policy's side) is awaited with a request and gives a Decision;
    the engine's declines when no front end is attached."""
    assert inspect.iscoroutinefunction(approver) or inspect.iscoroutinefunction(approver.__call__)
    assert await approver(ApprovalRequest("shell", "c", "ls")) is Decision.NO


async def test_every_asker_answers_the_event_it_is_handed():
    """An `Asker` (the front end's side) is handed the event and answers it, now or later."""
    async def yes(request: ApprovalRequest) -> Decision:
        return Decision.YES

    loop = asyncio.get_running_loop()
    for asker in (Answering(yes), lambda e: e.answer(Decision.YES)):
        event = ApprovalRequested("approval-1", ApprovalRequest("shell", "c", "ls"), loop.create_future())
        asker(event)
        assert await asyncio.wait_for(event.decision, 10) is Decision.YES
