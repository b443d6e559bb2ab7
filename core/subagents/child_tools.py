"""A subagent's tool router: the agent tools, made for it (its bus, its labelled
approvals), in the parent's turn. Its turn is no turn of the workspace's own: the parent's
checkpoint and diff take what its tools change, and the parent's turn starts and ends
them, so the child's start resets nothing and its end lets nothing go (neither the
checkpoint nor the turn lock)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rivulet.core import items as it
    from rivulet.core.tools.router import AgentTools


class ChildTools:
    def __init__(self, tools: AgentTools) -> None:
        self.tools = tools

    def specs(self) -> list[dict[str, Any]]:
        return self.tools.specs()

    async def run(self, call: it.Item) -> it.Item:
        return await self.tools.run(call)

    def start_turn(self) -> None:
        pass  # the turn's diff and checkpoint are the parent turn's (a reset here wiped its diff)

    def end_turn(self, turn_id: int) -> None:
        pass  # the parent's turn ends the checkpoint and lets the turn lock go

    async def approve_hosted(self, request: dict[str, Any]) -> str:
        return await self.tools.approve_hosted(request)
