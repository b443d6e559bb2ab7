"""The shared interface of issue 41: subagent events on the parent's bus, and approvals
labelled with the subagent that asks."""

from __future__ import annotations

import asyncio

from rivulet.core.errors import RivuletError
from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.tools.approval import ApprovalRequest, Decision
from rivulet.core.tools.approval_event import ApprovalRequested, BusApprover
from rivulet.core.turn.bus import ErrorOccurred, EventBus, ItemDelta, TurnCompleted


def test_a_relayed_event_is_its_inner_line_tagged_with_the_subagent() -> None:
    event = SubagentEvent("sa-1", "call-1", ItemDelta("msg-1", "output_text", "hi"))
    assert event.to_json() == {"type": "item.delta", "item_id": "msg-1", "kind": "output_text",
                               "delta": "hi", "index": None, "subagent": "sa-1"}
    # A subagent's own turn is never read as the run's: its end and its error are renamed.
    done = SubagentEvent("sa-1", "call-1", TurnCompleted(1, None, "ok"))
    assert done.to_json()["type"] == "subagent.turn.completed" and done.to_json()["subagent"] == "sa-1"
    failed = SubagentEvent("sa-1", "call-1", ErrorOccurred(RivuletError("boom")))
    assert failed.to_json()["type"] == "subagent.error"
    nested = SubagentEvent("sa-2", "call-2", SubagentEvent("sa-1", "call-9", ItemDelta("m", "output_text", "x")))
    assert nested.to_json()["subagent"] == "sa-2/sa-1" and nested.to_json()["type"] == "item.delta"
    started = SubagentStarted("sa-1", "call-1", "tests", "run the tests")
    assert started.to_json()["type"] == "subagent.started"
    ended = SubagentEnded("sa-1", "call-1", "failed", None, "server error", None, None)
    assert ended.to_json()["error"] == "server error"


async def test_an_approval_asked_for_a_subagent_carries_its_name() -> None:
    bus = EventBus()
    approver = BusApprover(bus)
    seen: list[ApprovalRequested] = []

    def asker(event: ApprovalRequested) -> None:
        seen.append(event)
        event.answer(Decision.YES)

    approver.attach(asker)
    decision = await asyncio.wait_for(approver(ApprovalRequest("shell", "c1", "ls"), subagent="tests"), 10)
    assert decision is Decision.YES
    assert seen[0].subagent == "tests"
    assert seen[0].to_json()["subagent"] == "tests"
    assert seen[0].request.subagent == "tests"  # an asker handed the request alone labels it too
    await bus.close()


def test_the_terminal_question_says_which_subagent_asks() -> None:
    from rivulet.app.exec_prompt import question_text

    text = question_text(ApprovalRequest("shell", "c1", "ls", subagent="te\x1bsts"))
    assert text.splitlines()[1] == "agent 'te␛sts' asks:"
    assert "asks:" not in question_text(ApprovalRequest("shell", "c1", "ls"))
