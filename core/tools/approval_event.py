"""An approval as a request with an id on the bus: the tool policy asks, the front end
attached answers.

`BusApprover` is the policy's `Approver` in every engine: it publishes `ApprovalRequested`
(the question, its id, and a future for the answer) and waits for that future. The front
end that shows questions attaches an `Asker` (`attach`): the chat's dialog, exec's and
plain mode's terminal prompt, an ACP client's `session/request_permission`. It resolves
the request with `event.answer(decision)`, or by id through `answer(id, decision)`;
nothing here knows how it is shown. With no asker attached nobody could answer, so a
question is declined at once and never published (a headless `exec`: the policy's
`deny_all`, as it always was). An interrupt cancels the waiting turn, and with it the
future: a late answer to a question nobody waits for is dropped (`answer` returns False).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol

import msgspec

from rivulet.core.tools.approval import ApprovalRequest, Decision
from rivulet.core.turn.bus import BusEvent, EventBus

log = logging.getLogger(__name__)


class ApprovalRequested(BusEvent):
    id: str  # unique in its engine: what `BusApprover.answer` (and an ACP client) names
    request: ApprovalRequest
    decision: asyncio.Future[Decision]
    # The NAME of the subagent that asks (issue 41), for the label "agent 'tests' asks";
    # None when the conversation itself asks.
    subagent: str | None = None
    type: ClassVar[str] = "approval.requested"

    def answer(self, decision: Decision) -> bool:
        """Resolve the question; False when it is no longer asked (interrupted, answered)."""
        if self.decision.done():
            return False
        self.decision.set_result(decision)
        return True

    def to_json(self) -> dict[str, Any]:
        r = self.request
        return {"type": self.type, "id": self.id, "kind": r.kind, "call_id": r.call_id, "title": r.title,
                "subagent": self.subagent}


class Asker(Protocol):
    """How a front end answers the approval questions: it is handed each `ApprovalRequested`
    (as a bus subscriber) and answers it with `event.answer(decision)`, now or later."""

    def __call__(self, event: ApprovalRequested, /) -> Awaitable[None] | None: ...


class BusApprover:
    """The policy's `Approver`: asks on the bus, by id, and waits for the attached front end."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self._askers = 0
        self._ids = itertools.count(1)
        self._open: dict[str, ApprovalRequested] = {}

    def attach(self, asker: Asker) -> Callable[[], None]:
        """`asker` answers the questions from now on (subscribed to them on the bus);
        returns the function that detaches it."""
        unsubscribe = self.bus.subscribe(asker, ApprovalRequested)  # type: ignore[arg-type]
        self._askers += 1
        attached = True

        def detach() -> None:
            nonlocal attached
            if attached:
                attached = False
                self._askers -= 1
                unsubscribe()

        return detach

    @property
    def attached(self) -> bool:
        return self._askers > 0

    def answer(self, request_id: str, decision: Decision) -> bool:
        """Answer the open question `request_id`; False when none is open by that id."""
        event = self._open.get(request_id)
        return event is not None and event.answer(decision)

    async def __call__(self, request: ApprovalRequest, subagent: str | None = None) -> Decision:
        """Ask `request`; `subagent` names the subagent asking (its approvals go through
        the parent's approver, labelled)."""
        if not self.attached:
            return Decision.NO  # nobody to ask (headless): declined, nothing runs
        if subagent is not None:  # every asker labels it, also one that is handed the request alone
            request = msgspec.structs.replace(request, subagent=subagent)
        decision: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        event = ApprovalRequested(f"approval-{next(self._ids)}", request, decision, subagent)
        self._open[event.id] = event
        self.bus.publish(event)
        try:
            return await decision
        finally:
            del self._open[event.id]
            decision.cancel()  # an interrupt: a dialog still open has nothing to answer


class Answering:
    """An `Asker` made of a question that returns the decision (a terminal prompt). Each
    question is its own task, so the bus goes on (the question may first wait for the bus
    to drain, as plain mode's does); it answers with what the question returns, stops
    asking when the request is withdrawn (an interrupt), and declines if the question fails."""

    def __init__(self, ask: Callable[[ApprovalRequest], Awaitable[Decision]]) -> None:
        self.ask = ask
        self._asking: set[asyncio.Task[None]] = set()  # held: a task nobody holds may be collected

    def __call__(self, event: ApprovalRequested, /) -> None:
        if event.decision.done():
            return  # withdrawn before it was asked
        task = asyncio.ensure_future(self._answer(event))
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)

    async def _answer(self, event: ApprovalRequested) -> None:
        asking = asyncio.ensure_future(self.ask(event.request))
        try:
            await asyncio.wait([asking, event.decision], return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not asking.done():  # withdrawn while asked (or this task cancelled): the prompt goes
                asking.cancel()
                await asyncio.gather(asking, return_exceptions=True)
        if asking.cancelled():
            return
        try:
            decision = asking.result()
        except Exception:
            log.warning("an approval question failed: declined", exc_info=True)
            decision = Decision.NO
        event.answer(decision)
