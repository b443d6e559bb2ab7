"""Remote MCP approval (issue 27), from the real captures of an approval round trip
(vercel-ai's openai-mcp-tool-approval: the first response stops at an
mcp_approval_request, the fourth runs the approved call): the question goes through
rivulet's approval policy, the answer goes back as an mcp_approval_response in the next
request, the request keeps its id so the answer can name it; no, and stop, too."""

from __future__ import annotations

import json

import pytest
from helpers.mock_api import serving, settings
from helpers.recorded import recording

from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.turn.conversation import Conversation

ASKS = recording("openai-mcp-tool-approval.1.jsonl").body
RUNS = recording("openai-mcp-tool-approval.4.jsonl").body
REQUEST_ID = "mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe"


def _tools(tmp_path, answer: Decision, asked: list[ApprovalRequest]) -> AgentTools:
    async def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return answer

    return AgentTools(ToolSettings(workspace=tmp_path, shell=False, patch_tool="off"),
                      ApprovalPolicy("ask", approver))


@pytest.mark.parametrize(("answer", "approve"), [(Decision.YES, True), (Decision.NO, False)])
async def test_the_approval_request_is_asked_and_answered_in_the_next_request(tmp_path, answer, approve):
    requests = []
    asked: list[ApprovalRequest] = []
    conv = Conversation(settings(), serving(ASKS, RUNS, requests=requests), tools=_tools(tmp_path, answer, asked),
                        project=None)
    result = await conv.run_turn("shorten https://ai-sdk.dev/")
    assert len(asked) == 1 and asked[0].kind == "mcp" and "zip1 · create_short_url" in asked[0].title
    assert '"url":"https://ai-sdk.dev/"' in asked[0].detail  # what the call will send, shown before it runs
    assert len(requests) == 2
    sent = json.loads(requests[1].content)["input"]
    kinds = [i.get("type") for i in sent]
    assert kinds.index("mcp_approval_request") < kinds.index("mcp_approval_response")
    request = next(i for i in sent if i.get("type") == "mcp_approval_request")
    assert request["id"] == REQUEST_ID  # kept (store is false): the response names it
    assert {"type": "mcp_approval_response", "approval_request_id": REQUEST_ID, "approve": approve} in sent
    assert result.last_message and "zip1.io" in result.last_message


async def test_stop_answers_no_and_ends_the_turn_without_a_follow_up(tmp_path):
    requests = []
    conv = Conversation(settings(), serving(ASKS, RUNS, requests=requests),
                        tools=_tools(tmp_path, Decision.STOP, []), project=None)
    result = await conv.run_turn("shorten it")
    assert len(requests) == 1 and result.stopped
    assert conv.history.items[-1] == {"type": "mcp_approval_response", "approval_request_id": REQUEST_ID,
                                      "approve": False}


async def test_without_an_approval_policy_the_answer_is_no(tmp_path):
    requests = []
    conv = Conversation(settings(), serving(ASKS, RUNS, requests=requests), project=None)
    await conv.run_turn("shorten it")
    sent = json.loads(requests[1].content)["input"]
    assert {"type": "mcp_approval_response", "approval_request_id": REQUEST_ID, "approve": False} in sent
