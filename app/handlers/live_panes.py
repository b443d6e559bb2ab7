"""Item started → deltas → live ended or discarded: the live panes, and the frame tick
that flushes their buffers (the screen changes at most once per frame, however fast
deltas arrive)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.app.image_saving import save_partial
from rivulet.core.turn import bus as b
from rivulet.widgets.kind_views import live_pane_for
from rivulet.widgets.live import LiveImage, LiveOther, LivePane, LiveReasoning

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import Handler
    from rivulet.app.chat_view import ChatView


class LivePanes:
    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.live: dict[str, LivePane] = {}  # item id → its pane, while the item streams
        # Subagents' live panes (app/handlers/subagents.py), by (subagent id, item id): flushed
        # by the same tick, out of reach of the conversation's own deltas.
        self.nested: dict[tuple[str, str], LivePane] = {}
        self.show_raw_reasoning = False
        self.completing: set[str] = set()  # items committed later in the batch being handled

    def routes(self) -> dict[type, Handler]:
        return {
            b.ItemStarted: self.started,
            b.ItemDelta: self.delta,
            b.ItemPart: self.part,
            b.ItemProgressed: self.progressed,
            b.ItemLiveEnded: self.live_ended,
            b.ItemDiscarded: self.discarded,
            b.TurnStarted: self.turn_started,
            b.TurnCompleted: self.turn_completed,
        }

    def batch_started(self, events: list[b.BusEvent]) -> None:
        self.completing = {e.item_id for e in events if isinstance(e, b.ItemCompleted)}

    async def batch_ended(self) -> None:
        self.completing = set()

    async def started(self, event: b.ItemStarted) -> None:
        if event.item_id in self.completing:
            return  # committed in the same batch: its pane would never be drawn
        pane = live_pane_for(event.item, event.item_id, self.show_raw_reasoning)
        self.live[event.item_id] = pane
        await self.view.transcript.mount(pane)
        self.view.frame_timer.resume()

    async def delta(self, event: b.ItemDelta) -> None:
        pane = self.live.get(event.item_id)
        if pane is not None and not pane.has_class("live-ended"):
            pane.add_delta(event.kind, event.delta)

    async def part(self, event: b.ItemPart) -> None:
        pane = self.live.get(event.item_id)
        if pane is not None:
            pane.add_part(event.kind, event.index)

    async def progressed(self, event: b.ItemProgressed) -> None:
        pane = self.live.get(event.item_id or "")
        if isinstance(pane, LiveImage) and event.image_b64 is not None:  # image generation's partial image
            pane.show_partial(event.image_b64, event.image_index, save_partial(self.view.session_writer, event))
        elif isinstance(pane, LiveOther):
            pane.set_status(event.event.rsplit(".", 1)[-1])

    async def live_ended(self, event: b.ItemLiveEnded) -> None:
        # A later item was added while this one streamed: its pane stops growing;
        # its Item Done still replaces it with the committed entry.
        pane = self.live.get(event.item_id)
        if pane is not None:
            await pane.flush(force=True)
            pane.add_class("live-ended")

    async def discarded(self, event: b.ItemDiscarded) -> None:
        pane = self.live.pop(event.item_id, None)
        if pane is not None:
            await pane.flush(force=True)
            await pane.close()
            pane.mark_discarded(event.reason)

    async def turn_started(self, _: b.TurnStarted) -> None:
        await self._remove_discarded()

    async def turn_completed(self, _: b.TurnCompleted) -> None:
        await self._remove_discarded()

    async def _remove_discarded(self) -> None:
        for pane in self.view.transcript.query(".discarded"):
            await pane.remove()

    def take(self, item_id: str) -> LivePane | None:
        """The item is done: its pane leaves the live set (the commit replaces it)."""
        return self.live.pop(item_id, None)

    async def discard_all(self, reason: str) -> None:
        """The turn stopped: every live pane shows what it got, marked `reason`."""
        for pane in list(self.live.values()):
            await pane.flush(force=True)
            await pane.close()
            pane.mark_discarded(reason)
        self.live.clear()
        for pane in list(self.nested.values()):
            await pane.flush(force=True)
            await pane.close()
            pane.mark_discarded(reason)
        self.nested.clear()

    def toggle_raw_reasoning(self) -> bool:
        self.show_raw_reasoning = not self.show_raw_reasoning
        for pane in [*self.live.values(), *self.nested.values()]:
            if isinstance(pane, LiveReasoning):
                pane.show_raw = self.show_raw_reasoning
        return self.show_raw_reasoning

    async def frame(self) -> None:
        """The frame tick: flush every live pane, and keep the status line's heading."""
        if not (self.live or self.nested):
            self.view.frame_timer.pause()  # resumed when a pane goes live
            return
        heading = None
        for pane in list(self.live.values()):
            if pane.is_mounted:
                await pane.flush()
            if isinstance(pane, LiveReasoning):
                heading = pane.heading or heading
        for pane in list(self.nested.values()):  # (a subagent's heading is not the turn's)
            if pane.is_mounted:
                await pane.flush()
        if heading and heading != self.view.status.line.heading:
            self.view.status.set(heading=heading)
