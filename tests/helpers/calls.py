"""Building blocks for agent-loop tests: tool-call items and streams, an answer, a
scripted approver, a Conversation with real tools over a fake server, and checks."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from helpers.mock_api import serving, settings
from helpers.streams import body, completed, created, ev, message, message_events
from rivulet.core import items as it
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.turn.bus import EventBus
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.tool_api import NoTools


def custom_call(fid: str, call_id: str, name: str, text: str) -> dict:
    return {"id": fid, "type": "custom_tool_call", "status": "completed", "call_id": call_id, "name": name,
            "input": text}


def custom_call_events(fid: str, call_id: str, name: str, text: str, index: int = 0) -> list[str]:
    return [
        ev("response.output_item.added", output_index=index, item={**custom_call(fid, call_id, name, ""),
                                                                   "status": "in_progress"}),
        *[ev("response.custom_tool_call_input.delta", item_id=fid, output_index=index, delta=text[i:i + 7])
          for i in range(0, len(text), 7)],
        ev("response.custom_tool_call_input.done", item_id=fid, output_index=index, input=text),
        ev("response.output_item.done", output_index=index, item=custom_call(fid, call_id, name, text)),
    ]


def fn_call(fid: str, call_id: str, name: str, args: dict) -> dict:
    return {"id": fid, "type": "function_call", "status": "completed", "call_id": call_id, "name": name,
            "arguments": json.dumps(args)}


def fn_call_response(rid: str, *calls: dict) -> bytes:
    events = [created(rid)]
    for n, c in enumerate(calls):
        events += [ev("response.output_item.added", output_index=n, item={**c, "arguments": ""}),
                   ev("response.function_call_arguments.delta", item_id=c["id"], output_index=n,
                      delta=c["arguments"]),
                   ev("response.output_item.done", output_index=n, item=c)]
    return body([*events, completed(list(calls), rid)])


def answer(rid: str, text: str) -> bytes:
    return body([created(rid), *message_events(f"m_{rid}", text), completed([message(f"m_{rid}", text)], rid)])


class Asked:
    """A scripted user: answers every approval with `answer`, and remembers the questions."""

    def __init__(self, answer: Decision = Decision.YES) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.answer


class Scripted(NoTools):
    """An approver that answers from a script and remembers what it was asked."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)


def agent(tmp_path, *bodies: bytes, policy: str = "ask", approver=None, **tool_kw):
    requests: list = []
    bus = EventBus()
    tools = AgentTools(ToolSettings(workspace=tmp_path, **tool_kw),
                       ApprovalPolicy(policy, approver or Scripted()), bus)
    conv = Conversation(settings(), serving(*bodies, requests=requests), bus, tools=tools)
    return conv, requests


def sent_inputs(requests) -> list[list[dict]]:
    return [json.loads(r.content)["input"] for r in requests]


def assert_valid_request(items: list[dict]) -> None:
    """Every tool call has exactly one output, no orphan outputs, no empty call ids."""
    calls = [i for i in items if it.is_call(i)]
    outputs = [i for i in items if it.is_output(i)]
    assert all(it.call_id(i) for i in calls + outputs)
    assert sorted(it.call_id(c) for c in calls) == sorted(it.call_id(o) for o in outputs)


PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** Update File: notes.md\n@@\n-old\n+new\n*** End Patch\n"


class HeldTool(NoTools):
    """A tool named `look` that runs until the test releases it (the user queues or steers
    meanwhile): `started` is set when it runs, `release` lets it return `output`."""

    def __init__(self, output: str = "logs: quiet") -> None:
        self.output = output
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    def specs(self) -> list[dict[str, Any]]:
        return [{"type": "function", "name": "look", "parameters": {"type": "object", "properties": {}}}]

    async def run(self, call: it.Item) -> it.Item:
        self.started.set()
        await self.release.wait()
        return {"type": "function_call_output", "call_id": it.call_id(call), "output": self.output}
