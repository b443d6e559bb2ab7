"""The bus-to-Textual bridge: core bus events become Textual messages, and each event
goes to the handlers registered for its type.

The core publishes from the turn's worker; the bridge only queues and posts, and the
handlers (app/handlers/) run on Textual's message loop, where widget state is safe to
touch. A few small synchronous handlers run as an event arrives instead (`route_at_once`):
the batch it joins may first commit entries and lay them out, which takes frames, and the
user is waiting on them (the status line's "Done")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump

from rivulet.core.turn import bus as b

Handler = Callable[[Any], Awaitable[None]]
AtOnce = Callable[[Any], None]


class BusBatch(Message):
    """Core bus events, delivered into Textual's message queue. One message carries
    every event that arrived since the last one was handled: at thousands of deltas a
    second, a Textual message per delta would cost more than the deltas themselves."""


class BusBridge:
    def __init__(self, target: MessagePump) -> None:
        self.target = target  # where BusBatch is posted; its handler calls `drain`
        self._inbox: list[b.BusEvent] = []  # events not yet handled
        self._handlers: dict[type, list[Handler]] = defaultdict(list)
        self._at_once: dict[type, list[AtOnce]] = defaultdict(list)

    def route(self, handlers: Mapping[type, Handler]) -> None:
        """Add handlers by event type; several for one type run in the order added."""
        for event_type, handler in handlers.items():
            self._handlers[event_type].append(handler)

    def route_at_once(self, handlers: Mapping[type, AtOnce]) -> None:
        """Add handlers that run when the event arrives, before the events queued ahead of
        it are handled: small, synchronous, and written for that (they run on the same
        event loop as the rest, outside the message queue)."""
        for event_type, handler in handlers.items():
            self._at_once[event_type].append(handler)

    def publish(self, event: b.BusEvent) -> None:
        """The bus subscriber: the at-once handlers, then queue, and post one message for
        the whole queue."""
        for now in self._at_once.get(type(event), ()):
            now(event)
        self._inbox.append(event)
        if len(self._inbox) == 1:
            self.target.post_message(BusBatch())

    async def drain(self) -> None:
        events, self._inbox = self._inbox, []
        for event in events:
            await self._queued(event)

    async def handle(self, event: b.BusEvent) -> None:
        """Every handler of `event`, at once (for callers that skip the queue)."""
        for now in self._at_once.get(type(event), ()):
            now(event)
        await self._queued(event)

    async def _queued(self, event: b.BusEvent) -> None:
        for handler in self._handlers.get(type(event), ()):
            await handler(event)
