"""Payloads -> `ResponseEvent`s, the layer shared by every transport.

A transport reads raw JSON payloads (SSE `data:` fields, WebSocket text frames);
`payload_event` turns one into an event and raises failures as typed errors, so
`response.failed`, `response.incomplete` and `error` never reach the success path.
Transports stop at `response.completed` without waiting for the connection to end.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from rivulet.core.protocol.events import Completed, Failure, ResponseEvent
from rivulet.core.protocol.mapping import map_wire
from rivulet.core.protocol.wire import parse_wire


def payload_event(data: str | bytes) -> ResponseEvent | None:
    """One payload's event (None for an ignored unknown type); failures raise."""
    event = map_wire(parse_wire(data))
    if type(event) is Failure:
        raise event.error
    return event


async def response_events(payloads: AsyncIterable[str | bytes]) -> AsyncIterator[ResponseEvent]:
    async for data in payloads:
        event = payload_event(data)
        if event is None:
            continue
        yield event
        if type(event) is Completed:
            return
