"""Re-attaching to a background response that a quit left running.

`rivulet resume` finds the session's `background` record (its response id, the turn
and the history segment it belongs to), polls `GET /responses/{id}` until the response
is final, and commits what it made through the same state machine and sink as a live
stream: the items committed before the quit are not committed twice, a foreign item is
refused, the order is the response's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rivulet.core.errors import RivuletError
from rivulet.core.protocol.background import FINAL_STATUSES
from rivulet.core.protocol.events import Completed, ResponseEvent
from rivulet.core.protocol.mapping import clean_usage, failure_from_response
from rivulet.core.turn.bus import ErrorOccurred, Notice, TurnCompleted
from rivulet.core.turn.bus_sink import BusSink
from rivulet.core.turn.state_machine import consume_response

if TYPE_CHECKING:
    from rivulet.core.turn.conversation import Conversation


class CannotReattach(RivuletError):
    kind = "cannot_reattach"


async def reattach(conversation: Conversation, pending: dict[str, Any], *, poll_every: float = 2.0,
                   sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> str | None:
    """Wait for the left response to end and commit its output; returns its last
    message. Errors are published and raised, as a turn's are."""
    rid, segment = str(pending.get("response_id")), str(pending.get("segment") or "")
    given = pending.get("turn_id")
    turn_id = given if isinstance(given, int) else conversation.turns
    api = conversation.transport.background
    if api is None:
        raise CannotReattach(f"background response {rid} cannot be fetched over {conversation.transport.name}")
    bus = conversation.bus
    bus.publish(Notice(f"re-attaching to background response {rid}"))
    try:
        response: dict[str, Any] = await api.retrieve(rid)
        while response.get("status") not in FINAL_STATUSES:
            await sleep(poll_every)
            response = await api.retrieve(rid)
        if response.get("status") == "failed":
            raise failure_from_response(response)
        earlier = {e.key for e in conversation.history.entries if e.segment == segment and e.key}
        sink = BusSink(bus, conversation.history, segment or f"req-{conversation.requests + 1}", earlier)
        result = await consume_response(_one(_completed(response)), sink)
    except RivuletError as exc:
        bus.publish(ErrorOccurred(exc))
        raise
    session = conversation.session
    if session is not None:
        session.reattached(rid)
        session.turn_ended(turn_id, result.usage, "completed" if not result.incomplete else "incomplete")
    conversation.last_usage = result.usage or conversation.last_usage
    bus.publish(TurnCompleted(turn_id, result.usage, result.last_message, None, None))
    return result.last_message


def _completed(response: dict[str, Any]) -> Completed:
    status = response.get("status")
    details = response.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    incomplete = None if status == "completed" else str(reason or status)
    rid = response.get("id")
    return Completed(rid if isinstance(rid, str) else None, clean_usage(response.get("usage")), None, response,
                     incomplete=incomplete)


async def _one(event: ResponseEvent) -> AsyncIterator[ResponseEvent]:
    yield event
