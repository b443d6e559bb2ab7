"""What the turn loop needs from tools, and nothing of how they run: the router's
protocol, a router that offers nothing, and the user's "stop the turn"."""

from __future__ import annotations

from typing import Any, Protocol

from rivulet.core import items as it


class ToolRouter(Protocol):
    """Every method is called: none is optional (a router with nothing to do subclasses NoTools)."""

    def specs(self) -> list[dict[str, Any]]: ...

    async def run(self, call: it.Item) -> it.Item: ...

    def start_turn(self) -> None:
        """A user turn begins (its checkpoint starts empty)."""

    def end_turn(self, turn_id: int) -> None:
        """The turn ended, however: its checkpoint records what its tools changed."""

    async def approve_hosted(self, request: dict[str, Any]) -> str:
        """A remote MCP server's approval request: "yes", "no" or "stop"."""


class NoTools:
    """Offers no tools; a call the model makes anyway is answered, not left dangling.
    Its turn hooks do nothing, and a hosted approval request is declined."""

    def specs(self) -> list[dict[str, Any]]:
        return []

    async def run(self, call: it.Item) -> it.Item:
        name = call.get("name") or call.get("type")
        return it.aborted_output(call, f"error: tool {name!r} is not available in this client")

    def start_turn(self) -> None:
        pass

    def end_turn(self, turn_id: int) -> None:
        pass

    async def approve_hosted(self, request: dict[str, Any]) -> str:
        return "no"


class StopTurn(Exception):
    """The user said "no, and stop the turn": the call's output is recorded, no
    follow-up request is sent."""

    def __init__(self, output: it.Item, reason: str) -> None:
        super().__init__(reason)
        self.output = output
        self.reason = reason
