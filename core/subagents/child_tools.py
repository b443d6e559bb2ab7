"""A subagent's tool router: the agent tools, made for it (its bus, its labelled
approvals), in the parent's turn. Its turn is no turn of the workspace's own: the parent's
checkpoint takes what its tools change, and the parent's turn ends it, so the child's end
lets nothing go (neither the checkpoint nor the turn lock)."""

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
        self.tools.start_turn()  # (its own diff of the turn; the checkpoint is the parent turn's)

    def end_turn(self, turn_id: int) -> None:
        pass  # the parent's turn ends the checkpoint and lets the turn lock go

    async def approve_hosted(self, request: dict[str, Any]) -> str:
        return await self.tools.approve_hosted(request)
