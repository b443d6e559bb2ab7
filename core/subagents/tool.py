"""The `spawn_agent` function tool: what the model is offered, how a call is read, and
the call's output made of the subagent's answer (capped)."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from rivulet.core import items as it

NAME = "spawn_agent"
# The answer's characters kept for the model, as a command's output (ToolSettings.output_limit).
ANSWER_CAP = 16_000

SPEC: dict[str, Any] = {
    "type": "function", "name": NAME, "strict": False,
    "description": ("Hand a self-contained task to a subagent: a new conversation with the same tools that "
                    "starts from `task` alone (it sees nothing of this conversation: put in the task what it "
                    "needs) and returns its final answer. Several calls in one response run at once: use them "
                    "for independent pieces of work."),
    "parameters": {
        "type": "object", "additionalProperties": False, "required": ["task"],
        "properties": {
            "task": {"type": "string", "description": "The whole task, with the context it needs."},
            "name": {"type": "string", "description": "A short name for the subagent, shown to the user."},
            "instructions": {"type": "string", "description": "Short extra instructions for the subagent."},
        },
    },
}


class AgentCall(msgspec.Struct, frozen=True):
    """A `spawn_agent` call's arguments, read."""

    task: str
    name: str | None = None
    instructions: str | None = None


def is_agent_call(call: it.Item) -> bool:
    return call.get("type") == "function_call" and call.get("name") == NAME


def read_call(call: it.Item) -> AgentCall | str:
    """The call's arguments, or an error text for the model."""
    try:
        args = json.loads(call.get("arguments") or "{}")
    except ValueError as exc:
        return f"error: the arguments are not valid JSON ({exc}); send them again"
    if not isinstance(args, dict):
        return "error: the arguments must be a JSON object"
    task = args.get("task")
    if not isinstance(task, str) or not task.strip():
        return "error: 'task' must be a non-empty string: the whole task for the subagent"
    name, extra = args.get("name"), args.get("instructions")
    return AgentCall(task, name.strip() or None if isinstance(name, str) else None,
                     extra.strip() or None if isinstance(extra, str) else None)


def capped(answer: str, cap: int = ANSWER_CAP) -> str:
    """The answer as the model gets it: past `cap` characters cut, with a line saying so."""
    if len(answer) <= cap:
        return answer
    return f"{answer[:cap]}\n(the subagent's answer was cut: {len(answer) - cap:,} of its {len(answer):,} " \
           "characters left out)"


def output(call: it.Item, text: str) -> it.Item:
    return {"type": "function_call_output", "call_id": it.call_id(call), "output": text}
