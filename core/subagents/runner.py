"""Running subagents: each `spawn_agent` call is a child conversation of its own.

The child is made by the engine (`ChildFactory`: the same settings, model, transport,
sandbox, approval policy and checkpoints, a fresh history, its own tools), and runs one
turn whose prompt is the task alone. Its bus relays every event to the parent's bus as a
`SubagentEvent` (at once, in order, between `SubagentStarted` and `SubagentEnded`); its
approvals are asked through the parent's approver, labelled with its name; every item it
commits is recorded in the parent's session file (`subagent_item`). Whatever ends it
(its answer, a server error, its follow-up limit, an exception of its own) becomes the
call's output in plain words: a subagent never fails the parent. Cancelling the call
cancels the child (its tool, its request) and says so on the bus.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.core import items as it
from rivulet.core.errors import RivuletError
from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.subagents.tool import SPEC, AgentCall, capped, is_agent_call, output, read_call
from rivulet.core.turn.bus import BusEvent, EventBus, TurnDiffUpdated
from rivulet.core.turn.tool_api import StopTurn

if TYPE_CHECKING:
    from rivulet.core.hooks.dispatch import Hooks
    from rivulet.core.tools.approval import ApprovalRequest, Decision
    from rivulet.core.turn.conversation import Conversation
    from rivulet.core.turn.history import HistoryEntry
    from rivulet.core.turn.recorder import SessionRecorder

log = logging.getLogger(__name__)

Approver = Callable[["ApprovalRequest"], Awaitable["Decision"]]


class ChildFactory(Protocol):
    """Makes a subagent's conversation (core/engine.py): on `bus`, asking through `approver`,
    with `instructions` added to the parent's, at `depth` (1: the conversation's own subagents)."""

    def __call__(self, bus: EventBus, approver: Approver, instructions: str | None, depth: int) -> Conversation: ...


class LabelledApprover(Protocol):
    """The parent's approver (BusApprover): a question asked with the name of the subagent asking."""

    def __call__(self, request: ApprovalRequest, subagent: str | None = None) -> Awaitable[Decision]: ...


class RelayBus(EventBus):
    """A subagent's own bus: what is published on it is also published, wrapped, on the
    parent's bus, at once (no queue between them: the parent's subscribers see the child's
    events in order, and a stream of deltas costs one more object each, not a task switch).
    The parent's `give_way` is the child's: a front end's drawing paces every stream."""

    def __init__(self, parent: EventBus, subagent: str, call_id: str) -> None:
        super().__init__()
        self.parent, self.subagent, self.call_id = parent, subagent, call_id
        self.give_way = parent.give_way

    def publish(self, event: BusEvent) -> None:
        if self._subs:  # (mostly none: the front ends listen on the parent's bus)
            super().publish(event)
        if isinstance(event, TurnDiffUpdated):  # the whole turn's diff (shared): the turn's own event, once
            self.parent.publish(event)
        else:
            self.parent.publish(SubagentEvent(self.subagent, self.call_id, event))


class Spent:
    """What the subagents of one turn used: tokens and dollars, and how many ran."""

    def __init__(self) -> None:
        self.input = self.cached = self.output = self.reasoning = self.count = 0
        self.dollars: float | None = None
        self.unpriced = False

    def add(self, cost: dict[str, Any] | None) -> None:
        self.count += 1
        if cost is None:
            return
        self.input += int(cost.get("input") or 0)
        self.cached += int(cost.get("cached") or 0)
        self.output += int(cost.get("output") or 0)
        self.reasoning += int(cost.get("reasoning") or 0)
        if cost.get("dollars") is None:
            self.unpriced = True
        else:
            self.dollars = (self.dollars or 0.0) + float(cost["dollars"])

    def to_json(self) -> dict[str, Any]:
        return {"input_tokens": self.input, "cached_tokens": self.cached, "output_tokens": self.output,
                "reasoning_tokens": self.reasoning, "dollars": None if self.unpriced else self.dollars,
                "count": self.count}


class SubagentRunner:
    """The `spawn_agent` tool of one conversation: its spec, and each call run as a child
    conversation (at most `limit` at once)."""

    def __init__(self, bus: EventBus, make_child: ChildFactory, ask: LabelledApprover, *, limit: int,
                 depth: int = 1, session: Callable[[], SessionRecorder | None] = lambda: None,
                 hooks: Hooks | None = None) -> None:
        self.bus = bus
        self.make_child = make_child
        self.ask = ask
        self.limit = limit
        self.depth = depth
        self.session = session  # the parent's session file, when it has one (read at each call: /new swaps it)
        self.hooks = hooks  # the user's before_tool/after_tool hooks see spawn_agent as any other call
        self._places = asyncio.Semaphore(limit)
        self._ids = itertools.count(1)
        self._spent = Spent()

    def specs(self) -> list[dict[str, Any]]:
        return [SPEC]

    def owns(self, call: it.Item) -> bool:
        return is_agent_call(call)

    def take_spent(self) -> dict[str, Any] | None:
        """What the subagents used since the last call (the turn's), or None when none ran."""
        spent, self._spent = self._spent, Spent()
        return spent.to_json() if spent.count else None

    async def run(self, call: it.Item) -> it.Item:
        """The call's output: the subagent's answer (capped), or why it has none. A
        before_tool hook exiting 2 keeps it from starting (as the router's calls)."""
        if self.hooks:
            blocked = await self.hooks.before_tool(call)
            if blocked is not None:
                return output(call, blocked)
        done = await self._spawn(call)
        if self.hooks:
            await self.hooks.after_tool(call, done)
        return done

    async def _spawn(self, call: it.Item) -> it.Item:
        args = read_call(call)
        if isinstance(args, str):
            return output(call, args)
        n = next(self._ids)
        subagent, name = f"sa-{n}", args.name or f"agent {n}"
        async with self._places:
            return await self._run(call, args, subagent, name)

    async def _run(self, call: it.Item, args: AgentCall, subagent: str, name: str) -> it.Item:
        call_id = it.call_id(call) or ""
        bus = RelayBus(self.bus, subagent, call_id)

        async def approver(request: ApprovalRequest) -> Decision:
            return await self.ask(request, subagent=name)

        self.bus.publish(SubagentStarted(subagent, call_id, name, args.task))
        child: Conversation | None = None
        try:
            child = self.make_child(bus, approver, args.instructions, self.depth)
            self._record_items(child, call_id, subagent, name)
            result = await child.run_turn(args.task)
        except asyncio.CancelledError:
            self._ended(subagent, call_id, name, "cancelled", None, None, child)
            raise
        except RivuletError as exc:
            return self._failed(call, subagent, name, exc.message, child)
        except Exception as exc:  # its own bug must not fail the parent's turn
            log.exception("subagent %s failed", subagent)
            return self._failed(call, subagent, name, f"{type(exc).__name__}: {exc}", child)
        answer = result.last_message
        # A turn the user stopped at its question ended "cancelled", as one cancelled from outside.
        self._ended(subagent, call_id, name, "cancelled" if result.stopped else "completed", answer, None, child,
                    result.usage)
        if result.stopped:  # the user said "stop the turn" at its question: the parent's turn stops too
            raise StopTurn(output(call, f"The subagent {name!r} was stopped: {result.stopped}."
                                  + (f" What it answered before:\n{capped(answer)}" if answer else "")),
                           result.stopped)
        if not answer:
            why = f" ({result.no_answer})" if result.no_answer else ""
            return output(call, f"The subagent {name!r} finished without an answer{why}.")
        return output(call, capped(answer))

    def _failed(self, call: it.Item, subagent: str, name: str, error: str, child: Conversation | None) -> it.Item:
        line = " ".join(error.split())
        self._ended(subagent, it.call_id(call) or "", name, "failed", None, line, child)
        return output(call, f"The subagent {name!r} failed: {line}. It gave no answer; its work may be partly "
                            "done.")

    def _ended(self, subagent: str, call_id: str, name: str, status: str, answer: str | None,
               error: str | None, child: Conversation | None, usage: dict[str, Any] | None = None) -> None:
        cost = child.last_cost if child is not None else None
        if child is not None:
            self._spent.add(cost)
        if (session := self.session()) is not None:  # how it ended, for a resume (a failure commits no item)
            session.subagent_ended(call_id, subagent, name, status, error)
        self.bus.publish(SubagentEnded(subagent, call_id, status, answer, error, usage, cost))

    def _record_items(self, child: Conversation, call_id: str, subagent: str, name: str) -> None:
        """Every item the child commits goes into the parent's session file, under the call."""
        session = self.session()
        if session is None:
            return

        def observe(change: str, data: Any) -> None:
            if change == "append":
                entry: HistoryEntry = data
                session.subagent_item(call_id, subagent, name, entry.item, entry.time)

        child.history.observers.append(observe)
