"""Tools that need no approval because they touch nothing: offered by default.

(Workspace tools that read or change files, with approval, come with the agent loop.)
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from rivulet.core import items as it
from rivulet.core.turn.tool_api import NoTools


class BuiltinTools(NoTools):
    """`current_time`: the local date and time; with `plan`, `update_plan` (plan_tool.py).
    Harmless, so they run without asking."""

    def __init__(self, plan: bool = False) -> None:
        self.plan = plan

    def specs(self) -> list[dict[str, Any]]:
        from rivulet.core.tools import plan_tool

        return [*([plan_tool.SPEC] if self.plan else []), {
            "type": "function",
            "name": "current_time",
            "description": "The user's local date, time and time zone.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            "strict": True,
        }]

    async def run(self, call: it.Item) -> it.Item:
        if call.get("type") == "function_call" and call.get("name") == "current_time":
            now = dt.datetime.now().astimezone()
            result = {"iso": now.isoformat(timespec="seconds"), "timezone": now.tzname()}
            return {"type": "function_call_output", "call_id": it.call_id(call), "output": json.dumps(result)}
        from rivulet.core.tools import plan_tool

        if self.plan and plan_tool.is_plan_call(call):
            return plan_tool.run(call)
        name = call.get("name") or call.get("type")
        return it.aborted_output(call, f"error: tool {name!r} is not available in this client")
