"""The bus-to-Textual bridge: core bus events become Textual messages, and each event
goes to the handlers registered for its type.

The core publishes from the turn's worker; the bridge only queues and posts, and the
handlers (app/handlers/) run on Textual's message loop, where widget state is safe to
touch. A batch is handled inside one Textual batch update: however many events (and
commits) it holds, the screen is laid out and drawn once after it, not once per event.
A batch is also cut after SLICE seconds, the rest posted again behind whatever came
meanwhile: a flood of items never keeps a typed key waiting for more than a slice.
A few small synchronous handlers run as an event arrives instead (`route_at_once`):
the batch it joins may first commit entries and lay them out, and the user is waiting
on them (the status line's "Done").

A key or a paste holds the next batches back until the screen has been updated after it
(`input_arrived`): on its way to the screen a key passes through several message pumps
(the app, the focused widget, the screen's update), each hop waiting for a turn of the
event loop, and in a flood each turn also held a batch and the layout it asked for.

A key that reaches the app cuts the batch under way short (`key_posted`), and the turn's
reader waits from then until the key is drawn (`give_way`): the reader shares the event
loop in slices of a few milliseconds, and each hop of the key otherwise waited for one.
Batches themselves do not stop the reader: a batch that waits on its awaits while the
reader reads takes more events, and a flood is laid out and drawn fewer times."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

from textual.app import App
from textual.message import Message
from textual.message_pump import MessagePump

from rivulet.core.turn import bus as b

Handler = Callable[[Any], Awaitable[None]]
AtOnce = Callable[[Any], None]

# Seconds of handling before the screen gets its turn. A flood is laid out once per slice,
# and the layout and redraw are most of its cost (10,000 items, chat CPU s in two runs
# under load: 7.7 / 8.9 at 25 ms, 5.1 / 9.2 at 50 ms, 4.3 / 6.1 at 100 ms). A key waits
# for the slice under way, not for the flood's later ones (`input_arrived`).
SLICE = 0.05
HOLD_MAX = 0.25  # seconds a key holds the batches back at most (if no screen update comes)
HOLD_UPDATES = 1  # screen updates a key waits for: the one that draws it (with the batch it cut)
# A key cuts a batch only if at least this many of its events are left (a flood's batch
# holds thousands). Cutting a paced stream's batch of a few deltas saves the key nothing
# and costs a layout more. (At 64, a flood's keys waited longer: median 72-89 ms, not 57-62.)
KEY_CUT_MIN = 8


class BusBatch(Message):
    """Core bus events, delivered into Textual's message queue. One message carries
    every event that arrived since the last one was handled: at thousands of deltas a
    second, a Textual message per delta would cost more than the deltas themselves."""


class BatchAware(Protocol):
    """A handler family that looks at a whole batch: before its events, and after them."""

    def batch_started(self, events: list[b.BusEvent]) -> None: ...

    async def batch_ended(self) -> None: ...


class BusBridge:
    def __init__(self, target: MessagePump, bus: b.EventBus | None = None) -> None:
        self.target = target  # where BusBatch is posted; its handler calls `drain`
        self._inbox: list[b.BusEvent] = []  # events not yet handled
        self._handlers: dict[type, list[Handler]] = defaultdict(list)
        self._at_once: dict[type, list[AtOnce]] = defaultdict(list)
        self._batch_aware: list[BatchAware] = []
        self._posted = False  # a BusBatch is in Textual's queue
        self._draining = False
        self.held = False  # a key is on its way to the screen: batches wait (`input_arrived`)
        self._hold = 0  # which hold the pending callbacks belong to (a newer key restarts it)
        self.input_waiting = False  # a key or paste is in the app's queue: the batch stops early
        self._free = asyncio.Event()  # no key is waiting or held: the turn's reader reads
        self._free.set()
        # A batch that ended with a key waiting: its screen update waits for the key (the
        # open update, and the timer that closes it if the key never comes).
        self._key_batch: tuple[AbstractContextManager[None], asyncio.TimerHandle] | None = None
        if bus is not None:
            bus.give_way = self.give_way  # the turn's reader, between its slices

    @property
    def quiet(self) -> bool:
        """Every event published so far has been handled, and no key holds the batches."""
        return not (self._inbox or self._posted or self._draining or self.held)

    def route(self, *families: Mapping[type, Handler]) -> None:
        """Add handlers by event type; several for one type run in the order added."""
        for handlers in families:
            for event_type, handler in handlers.items():
                self._handlers[event_type].append(handler)

    def route_at_once(self, handlers: Mapping[type, AtOnce]) -> None:
        """Add handlers that run when the event arrives, before the events queued ahead of
        it are handled: small, synchronous, and written for that (they run on the same
        event loop as the rest, outside the message queue)."""
        for event_type, handler in handlers.items():
            self._at_once[event_type].append(handler)

    def watch_batches(self, *families: BatchAware) -> None:
        self._batch_aware.extend(families)

    def publish(self, event: b.BusEvent) -> None:
        """The bus subscriber: the at-once handlers, then queue, and post one message for
        the whole queue."""
        for now in self._at_once.get(type(event), ()):
            now(event)
        self._inbox.append(event)
        self._post_batch()  # else the drain or the release posts

    def key_posted(self) -> None:
        """A key or a paste is in the app's queue (App.post_message): the batch under way
        stops at its next event (if KEY_CUT_MIN are left), and the reader waits, so the key
        is handled next."""
        self.input_waiting = True
        self._gate_reader()

    def key_taken(self) -> None:
        """The app is handling a key or paste (then `key_handled`)."""
        self.input_waiting = False
        self._gate_reader()

    def key_handled(self, handler: MessagePump | None) -> None:
        """The app has handled a key or paste: posted it to `handler` (the focused widget)
        if it came from the terminal, None if it bubbled back up. The screen may update
        again; a fresh key holds the batches until it is drawn (`input_arrived`)."""
        self._end_key_batch()
        if handler is not None:
            self.input_arrived(handler)

    def _end_key_batch(self) -> None:
        if self._key_batch is not None:
            (update, timer), self._key_batch = self._key_batch, None
            timer.cancel()
            update.__exit__(None, None, None)

    def input_arrived(self, handler: MessagePump) -> None:
        """A key or a paste, just posted to `handler` (the focused widget): no batch runs
        until the screen has been updated HOLD_UPDATES times after `handler` took it (or
        HOLD_MAX has passed), so each hop of the key is one short turn of the loop. Events
        keep arriving meanwhile; nothing is dropped, and the at-once handlers still run."""
        self.held = True
        self._gate_reader()
        self._hold += 1
        hold = self._hold
        asyncio.get_running_loop().call_later(HOLD_MAX, self._release, hold)
        # Through the handler's own queue: after the key, then after the screen's update.
        if not handler.call_after_refresh(self._updated, hold, HOLD_UPDATES):
            self._release(hold)

    def _updated(self, hold: int, left: int) -> None:
        if left > 1 and hold == self._hold and self.target.call_after_refresh(self._updated, hold, left - 1):
            return
        self._release(hold)

    def _release(self, hold: int) -> None:
        if hold != self._hold or not self.held:
            return  # a newer key holds on, or this hold is over
        self.held = False
        self._gate_reader()
        self._post_batch()

    def _gate_reader(self) -> None:
        """The turn's reader reads unless a key waits in the app's queue or is held."""
        if self.input_waiting or self.held:
            self._free.clear()
        else:
            self._free.set()

    async def give_way(self) -> None:
        """The turn's reader, between its slices (EventBus.give_way): a turn of the loop,
        then a wait while a key waits or is held (at most HOLD_MAX)."""
        await asyncio.sleep(0)
        if not self._free.is_set():
            try:
                async with asyncio.timeout(HOLD_MAX):
                    await self._free.wait()
            except TimeoutError:
                pass  # a drawing that hangs does not stop the turn

    def _post_batch(self) -> None:
        """One BusBatch in Textual's queue for what waits, unless one is there already, a
        drain is under way (it posts at its end) or a key holds the batches back."""
        if self._inbox and not (self._posted or self._draining or self.held):
            self._posted = True
            self.target.post_message(BusBatch())

    async def drain(self) -> None:
        self._posted = False
        if self.held:
            return  # the release posts again
        self._draining = True
        try:
            await self._drain()
        finally:
            self._draining = False
            self._post_batch()  # behind the keys that came meanwhile

    async def _drain(self) -> None:
        events, self._inbox = self._inbox, []
        if not events:
            return
        for family in self._batch_aware:
            family.batch_started(events)
        batch_update = self.target.batch_update if isinstance(self.target, App) else nullcontext
        deadline = time.monotonic() + SLICE
        with batch_update():  # one layout and one screen update for the whole batch
            for n, event in enumerate(events):
                await self._queued(event)  # (its at-once handlers ran on arrival)
                left = len(events) - n - 1
                if left and ((self.input_waiting and left >= KEY_CUT_MIN) or time.monotonic() > deadline):
                    self._inbox[:0] = events[n + 1:]  # the rest, first in the next batch
                    break
            for family in self._batch_aware:
                await family.batch_ended()
            if self.input_waiting and self._key_batch is None and isinstance(self.target, App):
                # A key waits (the batch was cut for it, or was ending): the batch's layout
                # and drawing wait for it, and are one update with it (they were two, and
                # the key waited for the first).
                update = self.target.batch_update()
                update.__enter__()
                self._key_batch = update, asyncio.get_running_loop().call_later(HOLD_MAX, self._end_key_batch)
        # A screen update that fell due during the batch was skipped, not postponed:
        # the screen is told to look again (else a key's echo waited for the next event).
        if isinstance(self.target, App) and self.target.screen_stack:
            self.target.screen.check_idle()

    async def handle(self, event: b.BusEvent) -> None:
        """Every handler of `event`, at once (for callers that skip the queue)."""
        for now in self._at_once.get(type(event), ()):
            now(event)
        await self._queued(event)

    async def _queued(self, event: b.BusEvent) -> None:
        for handler in self._handlers.get(type(event), ()):
            await handler(event)
