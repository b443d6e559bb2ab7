"""The bus events of subagents, published on the PARENT conversation's bus.

A subagent's own conversation has its own bus; every event on it is relayed to the
parent's as a `SubagentEvent` wrapping it, between a `SubagentStarted` and a
`SubagentEnded`. Front ends tell subagents apart by `subagent` (an id unique in the
parent conversation) and place them under the parent's call by `call_id`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rivulet.core.turn.bus import BusEvent


class SubagentStarted(BusEvent):
    subagent: str  # id unique in the parent conversation, e.g. "sa-1"
    call_id: str  # the parent's function call that spawned it
    name: str  # the `name` argument, or a default like "agent 1"
    task: str
    type: ClassVar[str] = "subagent.started"


class SubagentEvent(BusEvent):
    """Any bus event of the subagent's own conversation (ItemStarted, ItemDelta, ItemCompleted,
    ToolOutputDelta, ResponseStarted, UsageUpdated, Retrying, Notice, ...), relayed on the
    PARENT's bus."""

    subagent: str
    call_id: str
    event: BusEvent
    type: ClassVar[str] = "subagent.event"

    def to_json(self) -> dict[str, Any]:
        """exec --json's line: the inner event's, tagged with the subagent's id. What speaks
        for a whole conversation (turn.started/completed/interrupted, error) is renamed
        `subagent.turn.completed` and so on: a script that ends at the first `turn.completed`
        or fails at an `error` reads its own turn's, never a subagent's. A nested subagent's
        id is its path (`sa-1/sa-2`)."""
        out = self.event.to_json()  # (once per relayed delta: kept to a few dict operations)
        if out["type"] in _WHOLE_TURN:
            out["type"] = "subagent." + out["type"]
        out["subagent"] = f"{self.subagent}/{out['subagent']}" if type(self.event) is SubagentEvent \
            else self.subagent
        return out


# The inner events a script reads as its own turn's end or failure.
_WHOLE_TURN = frozenset({"turn.started", "turn.completed", "turn.interrupted", "error"})


class SubagentEnded(BusEvent):
    subagent: str
    call_id: str
    status: str  # "completed" | "failed" | "cancelled"
    answer: str | None  # its final answer (uncapped here; the call's output is capped)
    error: str | None  # one line, when failed
    usage: dict[str, Any] | None
    cost: dict[str, Any] | None  # as TurnCompleted.cost (core/turn/turn_cost.py)
    type: ClassVar[str] = "subagent.ended"
