"""An approval as a request on the bus: the tool policy asks, a front end answers.

`BusApprover` is the policy's `Approver` when a front end has none of its own: it
publishes `ApprovalRequested` (the question and a future for the answer) and waits for
that future. Whoever shows the question (the chat's dialog, a line prompt) resolves it
with `answer(decision)`; nothing here knows how it is shown. An interrupt cancels the
waiting turn, and with it the future: a late answer to a question nobody waits for is
dropped (`answer` returns False).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from rivulet.core.tools.approval import ApprovalRequest, Decision
from rivulet.core.turn.bus import BusEvent, EventBus


class ApprovalRequested(BusEvent):
    request: ApprovalRequest
    decision: asyncio.Future[Decision]
    type: ClassVar[str] = "approval.requested"

    def answer(self, decision: Decision) -> bool:
        """Resolve the question; False when it is no longer asked (interrupted, answered)."""
        if self.decision.done():
            return False
        self.decision.set_result(decision)
        return True

    def to_json(self) -> dict[str, Any]:
        r = self.request
        return {"type": self.type, "kind": r.kind, "call_id": r.call_id, "title": r.title}


class BusApprover:
    """An `Approver` that asks on the bus and waits for a front end's answer."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus

    async def __call__(self, request: ApprovalRequest) -> Decision:
        decision: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.bus.publish(ApprovalRequested(request, decision))
        try:
            return await decision
        finally:
            decision.cancel()  # an interrupt: a dialog still open has nothing to answer
