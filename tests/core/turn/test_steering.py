"""Steer: a message sent into the running turn goes out at its next request boundary,
after the tool outputs, and is committed (history, session file) like any user message;
a turn that sends no further request gets it as the next turn, never loses it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from helpers.calls import HeldTool, answer, fn_call, fn_call_response, sent_inputs
from helpers.mock_api import serving, settings

from rivulet.core.engine import Engine
from rivulet.core.store.session import SessionWriter, load_session

CALL = fn_call("fc_1", "call_1", "look", {"what": "the logs"})



def _engine(tmp_path, *bodies: bytes, requests: list, tools: Any = None) -> tuple[Engine, Any]:
    writer, meta = SessionWriter.create(model="gpt-test", base_url="u", directory=tmp_path)
    s = settings(workspace=str(tmp_path), save_sessions=False)
    engine = Engine(s, transport=serving(*bodies, requests=requests), tools=tools or HeldTool(), writer=writer)
    return engine, meta


async def test_a_steered_message_follows_the_tool_output_in_the_next_request_and_the_session(tmp_path):
    requests: list = []
    tool = HeldTool()
    engine, meta = _engine(tmp_path, fn_call_response("r1", CALL), answer("r2", "Looking at the tests."),
                           requests=requests, tools=tool)
    turn = asyncio.ensure_future(engine.submit("check the logs"))
    await asyncio.wait_for(tool.started.wait(), 30)
    assert engine.steer("and then the tests")  # while the tool runs
    tool.release.set()
    result = await asyncio.wait_for(turn, 30)
    await engine.aclose()
    assert len(requests) == 2 and result.last_message == "Looking at the tests."
    follow_up = sent_inputs(requests)[1]
    kinds = [(i.get("type"), i.get("role")) for i in follow_up]
    assert kinds[-2:] == [("function_call_output", None), ("message", "user")]  # the output, then the steer
    assert follow_up[-1]["content"][0]["text"] == "and then the tests"
    assert "and then the tests" not in str(sent_inputs(requests)[0])  # not in the request sent before it
    saved = load_session(meta.path).history
    steered = [e for e in saved.entries if e.key == "steer-1-1"]
    assert [e.item["content"][0]["text"] for e in steered] == ["and then the tests"]
    keys = [e.key for e in saved.entries]
    assert keys.index("call_1:output") < keys.index("steer-1-1")
    assert not engine.conversation.steering  # sent: nothing waits


async def test_a_message_steered_after_the_last_request_is_the_next_turn(tmp_path):
    requests: list = []
    engine, meta = _engine(tmp_path, answer("r1", "First."), answer("r2", "Second."), requests=requests)
    stream = engine.conversation.transport.stream

    def steering_while_answering(body):  # the user steers while the only request of the turn streams
        if not requests:
            assert engine.steer("one more thing")
        return stream(body)

    engine.conversation.transport.stream = steering_while_answering
    result = await asyncio.wait_for(engine.submit("hello"), 30)
    await engine.aclose()
    assert len(requests) == 2 and result.last_message == "Second."
    second = sent_inputs(requests)[1]
    assert second[-1]["role"] == "user" and second[-1]["content"][0]["text"] == "one more thing"
    saved = load_session(meta.path)
    assert [t.prompt for t in saved.turns] == ["hello", "one more thing"]


async def test_no_turn_no_steer_and_an_interrupted_turn_gives_its_steers_back(tmp_path):
    requests: list = []
    tool = HeldTool()
    engine, _ = _engine(tmp_path, fn_call_response("r1", CALL), answer("r2", "never"), requests=requests,
                        tools=tool)
    assert not engine.steer("nobody listens")  # no turn: the caller submits it instead
    assert not engine.conversation.steering
    turn = asyncio.ensure_future(engine.submit("check the logs"))
    await asyncio.wait_for(tool.started.wait(), 30)
    assert engine.steer("keep this")
    assert engine.interrupt()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await engine.aclose()
    assert len(requests) == 1  # nothing more was sent
    assert engine.take_steered() == ["keep this"]  # for the front end to give back
    assert engine.take_steered() == []
