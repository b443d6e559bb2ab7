"""Payloads -> `ResponseEvent`s, the layer shared by every transport.

A transport reads raw JSON payloads (SSE `data:` fields, WebSocket text frames);
`payload_event` turns one into an event and raises failures as typed errors, so
`response.failed`, `response.incomplete` and `error` never reach the success path.
Transports stop at `response.completed` without waiting for the connection to end.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

import msgspec

from rivulet.core.protocol.events import Completed, Delta, Failure, ResponseEvent
from rivulet.core.protocol.mapping import TEXT_DELTA_KIND, map_wire
from rivulet.core.protocol.wire import DECODE, TextDeltaWire, WireEvent, parse_slow


def payload_event(data: str | bytes) -> ResponseEvent | None:
    """One payload's event (None for an ignored unknown type); failures raise."""
    try:  # parse_wire, inlined: a call less per event on the hot path
        wire = DECODE(data)
    except msgspec.DecodeError:
        wire = parse_slow(data)
    kind = TEXT_DELTA_KIND.get(type(wire))
    if kind is not None:  # a string delta, >95% of a stream: map_wire's first case, one call less
        d: TextDeltaWire = wire  # the class says so
        index = d.content_index
        if index is None:
            index = d.summary_index if d.summary_index is not None else d.command_index
        return Delta(kind, d.delta, d.item_id, d.output_index, index)  # (its `raw` is never read)
    return wire_event(wire, data)


def wire_event(wire: WireEvent, data: str | bytes) -> ResponseEvent | None:
    """Any wire event but a string delta (its payload `data`); failures raise."""
    wire.raw = data  # the fields sent beside the declared ones: read by some mappings
    event = map_wire(wire)
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
