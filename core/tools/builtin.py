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
    """`current_time`: the local date and time. Harmless, so it runs without asking."""

    def specs(self) -> list[dict[str, Any]]:
        return [{
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
        name = call.get("name") or call.get("type")
        return it.aborted_output(call, f"error: tool {name!r} is not available in this client")
