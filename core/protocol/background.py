"""Background responses: where a stream is, so that a cut one resumes instead of being
sent again.

A request sent with `background: true` (and `store: true`) keeps running on the server
when the connection drops. Its events carry `sequence_number`; `GET /responses/{id}
?stream=true&starting_after=N` streams the events after N, `GET /responses/{id}` returns
the response as it stands, and `POST /responses/{id}/cancel` stops it. The cursor is
what the transport learned of the one response it is reading.
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from rivulet.core.protocol.events import Completed, Created, Failure, ResponseEvent, ResponseProgress
from rivulet.core.protocol.mapping import map_wire
from rivulet.core.protocol.wire import DECODE, parse_slow


class BackgroundApi(Protocol):
    """What a transport that can leave a response running offers (SSE: plain HTTP calls)."""

    @property
    def cursor(self) -> StreamCursor: ...

    async def retrieve(self, response_id: str) -> dict[str, Any]: ...

    async def cancel(self, response_id: str) -> dict[str, Any]: ...


# Statuses after which a response changes no more.
FINAL_STATUSES = frozenset({"completed", "failed", "cancelled", "incomplete"})


class StreamCursor(msgspec.Struct, dict=True):
    """The response being read: its id (from response.created or response.queued) and
    the last sequence number seen; `resumed` counts the GETs that continued it."""

    response_id: str | None = None
    sequence: int | None = None
    resumed: int = 0
    status: str | None = None

    def seen(self, event: ResponseEvent | None, sequence: int | None) -> bool:
        """Note one event; False when it is one already read (a resumed stream that
        starts too early must not show a delta twice)."""
        if sequence is not None:
            if self.sequence is not None and sequence <= self.sequence:
                return False
            self.sequence = sequence
        if type(event) is Created or type(event) is ResponseProgress:
            rid = event.response.get("id")
            if isinstance(rid, str) and rid:
                self.response_id = rid
            status = event.response.get("status")
            if isinstance(status, str):
                self.status = status
        elif type(event) is Completed:
            self.status = "incomplete" if event.incomplete else "completed"
        return True


def sequenced_event(data: str | bytes) -> tuple[ResponseEvent | None, int | None]:
    """`payloads.payload_event` with the event's sequence number (failures raise). Not
    on the hot path of an ordinary stream: only background requests read it."""
    try:
        wire = DECODE(data)
    except msgspec.DecodeError:
        wire = parse_slow(data)
    wire.raw = data
    event = map_wire(wire)
    if type(event) is Failure:
        raise event.error
    seq = wire.sequence_number
    return event, seq if isinstance(seq, int) and not isinstance(seq, bool) else None
