"""`update_plan`: the model's plan of the task, a list of steps each pending, in progress
or completed (Codex's tool of that name, which models trained on it already call).

It touches nothing and runs without asking. It is offered only where a front end shows
a plan (ToolSettings.plan_tool: the editors of `rivulet acp`, which draw ACP's `plan`
updates); the front end reads the committed call with `read_plan`."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from rivulet.core import items as it

NAME = "update_plan"
Status = Literal["pending", "in_progress", "completed"]
MAX_STEPS = 100

SPEC: dict[str, Any] = {
    "type": "function", "name": NAME, "strict": True,
    "description": ("Keep the user informed of your plan for a task of several steps: send the whole plan, "
                    "each step with its status (pending, in_progress or completed; at most one in_progress), "
                    "and send it again as steps are done. Not for a simple one-step task."),
    "parameters": {
        "type": "object", "additionalProperties": False, "required": ["explanation", "plan"],
        "properties": {
            "explanation": {"type": ["string", "null"], "description": "Why the plan changed, if it did."},
            "plan": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": ["step", "status"],
                "properties": {"step": {"type": "string"},
                               "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}}}},
        },
    },
}


class Step(msgspec.Struct, frozen=True):
    step: str
    status: Status


class ModelPlan(msgspec.Struct, frozen=True):
    plan: list[Step]
    explanation: str | None = None


def is_plan_call(item: it.Item) -> bool:
    return item.get("type") == "function_call" and item.get("name") == NAME


def read_plan(item: it.Item) -> ModelPlan | str:
    """The plan a call sends, or one line saying what is wrong with it."""
    try:
        plan = msgspec.json.decode(str(item.get("arguments") or ""), type=ModelPlan)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return f"error: not a plan: {exc}"
    if not plan.plan or len(plan.plan) > MAX_STEPS:
        return f"error: a plan has 1 to {MAX_STEPS} steps"
    if sum(s.status == "in_progress" for s in plan.plan) > 1:
        return "error: at most one step can be in_progress"
    return plan


def run(item: it.Item) -> it.Item:
    """The call's output: taken, or what to fix."""
    plan = read_plan(item)
    text = plan if isinstance(plan, str) else "Plan updated."
    return {"type": "function_call_output", "call_id": it.call_id(item), "output": text}
