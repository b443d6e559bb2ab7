"""The bus-to-Textual bridge: core bus events become Textual messages, and each event
goes to the handlers registered for its type.

The core publishes from the turn's worker; the bridge only queues and posts, and the
handlers (app/handlers/) run on Textual's message loop, where widget state is safe to
touch. A batch is handled inside one Textual batch update: however many events (and
commits) it holds, the screen is laid out and drawn once after it, not once per event."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from contextlib import nullcontext
from typing import Any, Protocol

from textual.message import Message
from textual.message_pump import MessagePump

from rivulet.core.turn import bus as b

Handler = Callable[[Any], Awaitable[None]]


class BusBatch(Message):
    """Core bus events, delivered into Textual's message queue. One message carries
    every event that arrived since the last one was handled: at thousands of deltas a
    second, a Textual message per delta would cost more than the deltas themselves."""


class BatchAware(Protocol):
    """A handler family that looks at a whole batch: before its events, and after them."""

    def batch_started(self, events: list[b.BusEvent]) -> None: ...

    async def batch_ended(self) -> None: ...


class BusBridge:
    def __init__(self, target: MessagePump) -> None:
        self.target = target  # where BusBatch is posted; its handler calls `drain`
        self._inbox: list[b.BusEvent] = []  # events not yet handled
        self._handlers: dict[type, list[Handler]] = defaultdict(list)
        self._batch_aware: list[BatchAware] = []

    def route(self, handlers: Mapping[type, Handler]) -> None:
        """Add handlers by event type; several for one type run in the order added."""
        for event_type, handler in handlers.items():
            self._handlers[event_type].append(handler)

    def watch_batches(self, family: BatchAware) -> None:
        self._batch_aware.append(family)

    def publish(self, event: b.BusEvent) -> None:
        """The bus subscriber: queue, and post one message for the whole queue."""
        self._inbox.append(event)
        if len(self._inbox) == 1:
            self.target.post_message(BusBatch())

    async def drain(self) -> None:
        events, self._inbox = self._inbox, []
        for family in self._batch_aware:
            family.batch_started(events)
        batch_update = getattr(self.target, "batch_update", nullcontext)
        with batch_update():  # one layout and one screen update for the whole batch
            for event in events:
                await self.handle(event)
            for family in self._batch_aware:
                await family.batch_ended()

    async def handle(self, event: b.BusEvent) -> None:
        for handler in self._handlers.get(type(event), ()):
            await handler(event)
