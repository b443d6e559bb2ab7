"""The event bus: typed subscriptions; broken or slow subscribers never stall the stream."""

from __future__ import annotations

import asyncio

from helpers.mock_api import serving, settings
from helpers.streams import simple_text_response

from rivulet.core.errors import StreamError
from rivulet.core.turn.bus import ErrorOccurred, EventBus, ItemDelta, TurnStarted
from rivulet.core.turn.conversation import Conversation


async def test_typed_subscription_gets_only_its_types():
    bus = EventBus()
    got = []
    bus.subscribe(got.append, ItemDelta)
    bus.publish(TurnStarted(1, "x"))
    bus.publish(ItemDelta("m", "output_text", "hi"))
    await bus.drain()
    assert [type(e) for e in got] == [ItemDelta]


async def test_a_filtered_subscription_queues_only_what_its_filter_takes():
    bus = EventBus()
    got = []
    bus.subscribe(got.append, ItemDelta, when=lambda e: e.delta.startswith("call"))
    for text in ("hi", "call one", "there", "call two"):
        bus.publish(ItemDelta("m", "output_text", text))
    sub = bus._subs[0]
    assert sub.queue.qsize() == 2  # the rest was never queued: no task switch for them
    await bus.drain()
    assert [e.delta for e in got] == ["call one", "call two"]


async def test_a_raising_subscriber_is_isolated_and_keeps_receiving():
    bus = EventBus()
    calls, good = [], []

    def bad(event):
        calls.append(event)
        raise RuntimeError("subscriber bug")

    bus.subscribe(bad)
    bus.subscribe(good.append)
    conv = Conversation(settings(), serving(simple_text_response("fine")), bus)
    result = await conv.run_turn("go")
    await bus.drain()
    assert result.last_message == "fine"
    assert len(calls) == len(good) > 5  # it was called for every event, despite raising each time
    assert bus.errors == len(calls)


async def test_a_stalled_subscriber_does_not_stall_the_stream():
    bus = EventBus()
    release = asyncio.Event()
    stalled = []

    async def slow(event):
        stalled.append(event)
        await release.wait()

    bus.subscribe(slow)
    bus.publish(TurnStarted(0, "warm-up"))
    while not stalled:  # let the subscriber take the first event and block on it
        await asyncio.sleep(0)
    conv = Conversation(settings(), serving(simple_text_response("not blocked")), bus)
    result = await conv.run_turn("go")  # completes although the subscriber is stuck on event 1
    assert result.last_message == "not blocked"
    assert len(stalled) == 1
    release.set()
    await bus.drain()
    assert len(stalled) > 5


async def test_async_handlers_are_awaited_in_order():
    bus = EventBus()
    order = []

    async def handler(event):
        await asyncio.sleep(0)
        order.append(event.delta)

    bus.subscribe(handler, ItemDelta)
    for n in range(50):
        bus.publish(ItemDelta("m", "output_text", str(n)))
    await bus.drain()
    assert order == [str(n) for n in range(50)]


async def test_unsubscribe_and_close():
    bus = EventBus()
    got = []
    unsubscribe = bus.subscribe(got.append)
    bus.publish(ErrorOccurred(StreamError("x")))
    await bus.drain()
    unsubscribe()
    bus.publish(ErrorOccurred(StreamError("y")))
    await bus.close()
    assert len(got) == 1
    assert got[0].to_json()["error"]["kind"] == "stream_error"


async def test_a_turns_reader_gives_way_through_the_bus(monkeypatch):
    """A stream that never suspends (the server sent faster than it is read) hands the
    loop over between slices through the bus's `give_way`, which a front end replaces
    (the chat waits there while a typed key is drawn)."""
    from rivulet.core.turn import fair_share

    monkeypatch.setattr(fair_share, "SLICE", 0.0)  # a slice per event: every one gives way
    bus = EventBus()
    given: list[int] = []

    async def give_way() -> None:
        given.append(1)
        await asyncio.sleep(0)

    bus.give_way = give_way
    conv = Conversation(settings(), serving(simple_text_response("read in slices")), bus)
    result = await conv.run_turn("go")
    assert result.last_message == "read in slices"
    assert len(given) >= 5  # created, added, deltas, done, completed: each slice gave way
