"""`update_plan` (core/tools/plan_tool.py): offered only where a front end shows a plan
(ToolSettings.plan_tool: `rivulet acp`), runs without asking, says what is wrong with a
plan that does not read."""

from __future__ import annotations

import json

import pytest

from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings


def _tools(tmp_path, plan: bool) -> AgentTools:
    return AgentTools(ToolSettings(workspace=tmp_path, plan_tool=plan), ApprovalPolicy("ask"))


def _call(args: object) -> dict:
    return {"type": "function_call", "call_id": "c1", "name": "update_plan",
            "arguments": args if isinstance(args, str) else json.dumps(args)}


def test_offered_only_where_a_plan_is_shown(tmp_path):
    assert "update_plan" not in [s.get("name") for s in _tools(tmp_path, False).specs()]
    assert "update_plan" in [s.get("name") for s in _tools(tmp_path, True).specs()]


async def test_a_plan_is_taken_unasked(tmp_path):
    plan = {"explanation": None, "plan": [{"step": "a", "status": "completed"}, {"step": "b", "status": "pending"}]}
    out = await _tools(tmp_path, True).run(_call(plan))  # the policy asks, and nobody could answer: not asked
    assert out == {"type": "function_call_output", "call_id": "c1", "output": "Plan updated."}


@pytest.mark.parametrize(("args", "said"), [
    ("{not json", "error: not a plan"),
    ({"explanation": None, "plan": [{"step": "a", "status": "done"}]}, "error: not a plan"),
    ({"explanation": None, "plan": []}, "error: a plan has 1 to 100 steps"),
    ({"explanation": None, "plan": [{"step": "a", "status": "in_progress"}, {"step": "b", "status": "in_progress"}]},
     "error: at most one step can be in_progress"),
])
async def test_a_plan_that_does_not_read_is_answered_with_what_is_wrong(tmp_path, args, said):
    assert (await _tools(tmp_path, True).run(_call(args)))["output"].startswith(said)


async def test_not_offered_it_is_not_run(tmp_path):
    out = await _tools(tmp_path, False).run(_call({"explanation": None, "plan": [{"step": "a", "status": "pending"}]}))
    assert "not available" in out["output"]
