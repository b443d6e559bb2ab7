"""The sampling consumer: turns state-machine decisions into history and bus events."""

from __future__ import annotations

import time
from typing import Any

from rivulet.core import items as it
from rivulet.core.protocol.events import Completed, Delta, ItemProgress, PartAdded
from rivulet.core.turn.bus import (
    EventBus,
    ItemCompleted,
    ItemDelta,
    ItemDiscarded,
    ItemLiveEnded,
    ItemPart,
    ItemProgressed,
    ItemStarted,
    ProtocolDeviation,
    UsageUpdated,
)
from rivulet.core.turn.history import History
from rivulet.core.turn.state_machine import Deviation, SamplingSink, Transient


class BusSink(SamplingSink):
    """Publishes live-item events and commits each Item Done to history at once."""

    def __init__(self, bus: EventBus, history: History, segment: str,
                 committed_before: set[str] | None = None) -> None:
        self.bus = bus
        self.history = history
        self.segment = segment  # groups this request's items in history (for reordering)
        # Keys an earlier attempt of this same request committed before it was cut:
        # the retry replays them, and they are neither shown nor committed again. Only
        # those: another response may reuse an id (servers that number items per
        # response), and its items are new.
        self.committed_before = committed_before or set()
        self.replayed: set[str] = set()
        self.deviations: list[Deviation] = []
        self.first_delta_at: float | None = None  # monotonic time of the first delta (time to first token)
        self.timings: dict[str, Any] | None = None  # llama.cpp's timings of the response

    async def begin_item(self, key: str, item: it.Item) -> None:
        if key in self.committed_before and not key.startswith("#"):
            self.replayed.add(key)
            return
        self.bus.publish(ItemStarted(item, key))

    async def transient(self, key: str, event: Transient) -> None:
        if key in self.replayed:
            return
        if type(event) is Delta:
            if self.first_delta_at is None:
                self.first_delta_at = time.monotonic()
            self.bus.publish(ItemDelta(key, event.kind.value, event.delta, event.index))
        elif type(event) is PartAdded:
            self.bus.publish(ItemPart(key, event.kind.value, event.index))
        # PartDone / DeltaDone carry nothing the live panes lack; Item Done follows.

    async def live_ended(self, key: str) -> None:
        if key not in self.replayed:
            self.bus.publish(ItemLiveEnded(key))

    async def progress(self, key: str | None, event: ItemProgress) -> None:
        image = event.data.get("partial_image_b64") if event.event_type.endswith(".partial_image") else None
        if isinstance(image, str):
            index = event.data.get("partial_image_index")
            self.bus.publish(ItemProgressed(key, event.event_type, image, index if isinstance(index, int) else None))
            return
        self.bus.publish(ItemProgressed(key, event.event_type))

    async def deviation(self, note: Deviation) -> None:
        self.deviations.append(note)
        self.bus.publish(ProtocolDeviation(note.rule, note.detail, note.event))

    async def commit(self, key: str, item: it.Item, *, backfilled: bool = False) -> None:
        if key in self.replayed:
            return
        self.history.append(item, self.segment, key)
        self.bus.publish(ItemCompleted(item, key, backfilled))

    async def discard(self, key: str, reason: str) -> None:
        if key in self.replayed:
            return
        self.bus.publish(ItemDiscarded(key, reason))

    async def completed(self, event: Completed, order: list[str]) -> None:
        self.timings = event.timings
        self.history.reorder_response(self.segment, order)
        self.bus.publish(UsageUpdated(event.response_id, event.usage))
