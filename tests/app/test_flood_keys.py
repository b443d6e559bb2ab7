"""The chat under a flood of items (issue 22): a typed key is drawn before the flood's
next batch is handled, and the entries a flood pushes past the view are not rendered,
yet scrolling up and find still reach every one of them; a flood mounts only its newest
commit as a widget."""

from __future__ import annotations

import asyncio
import re

from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from textual import events
from textual.screen import Screen

from rivulet.app import bus_bridge
from rivulet.app.tui import RivuletApp
from rivulet.core.turn import bus as b
from rivulet.widgets.entries import ToolCallEntry, TranscriptEntry


def message(n: int) -> dict:
    return {"id": f"m{n}", "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": f"Item {n:04d}: an answer."}]}


def publish_items(app: RivuletApp, start: int, count: int) -> None:
    """Items streamed and committed, all published before the app handles any."""
    for n in range(start, start + count):
        item = message(n)
        app.bus.publish(b.ItemStarted({**item, "content": []}, item["id"]))
        app.bus.publish(b.ItemDelta(item["id"], "output_text", f"Item {n:04d}: "))
        app.bus.publish(b.ItemCompleted(item, item["id"]))


def shown_keys(app: RivuletApp) -> list[str]:
    transcript = app._transcript
    frozen = transcript.frozen
    return ([key for key, _, _ in frozen.entries] if frozen is not None else []) + \
        [w.item_id for w in transcript.children if isinstance(w, TranscriptEntry)]


def screen_text(app: RivuletApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_a_key_typed_in_a_flood_is_drawn_before_the_next_batch(monkeypatch):
    """Each hop of a key (app, composer, screen update) waits for a turn of the event loop;
    in a flood every turn also handled a batch and laid it out. With a batch per event (as a
    long flood is cut), the screen now draws the key before any batch after it runs."""
    monkeypatch.setattr(bus_bridge, "SLICE", 0.0)
    log: list[tuple[str, str]] = []  # ("batch" | "paint", the composer's text then)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    paint = Screen._compositor_refresh

    def painted(screen: Screen) -> None:
        paint(screen)
        if app.screen_stack and screen is app.screen:
            log.append(("paint", app._composer.text))

    monkeypatch.setattr(Screen, "_compositor_refresh", painted)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        handle = app.bridge._drain

        async def batch() -> None:
            log.append(("batch", app._composer.text))
            await handle()

        app.bridge._drain = batch  # type: ignore[method-assign]
        publish_items(app, 0, 300)
        app.post_message(events.Key("k", "k"))  # through the app, as a typed key comes
        await until(pilot, lambda: len(shown_keys(app)) == 300, "every item")
        await pilot.pause()
        assert shown_keys(app) == [f"m{n}" for n in range(300)]  # nothing lost or reordered
        after_key = [kind for kind, text in log if text == "k"]
        assert "batch" in after_key and "paint" in after_key  # the flood went on after the key
        assert after_key[0] == "paint", f"a batch ran before the key was drawn: {log}"


async def test_a_flood_renders_what_can_be_seen_and_keeps_the_rest_reachable(monkeypatch):
    monkeypatch.setattr(bus_bridge, "SLICE", 3600.0)  # one batch (a slow machine would cut it)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        publish_items(app, 0, 1000)
        await until(pilot, lambda: len(shown_keys(app)) == 1000, "every item")
        await pilot.pause()
        frozen = app._transcript.frozen
        assert frozen is not None
        assert "Item 0999: an answer." in screen_text(app)
        # The window is what can be seen, not half a screen more that the next batch of a
        # flood would push out before anyone saw it.
        assert frozen.drawn_lines <= app.size.height, (frozen.lo, frozen.hi, frozen.drawn_lines)
        assert frozen.lo > 900  # the other ~900 entries are data
        # Scrolling up draws what comes into view, in order.
        for _ in range(4):
            app.action_scroll_transcript("page_up")
            await pilot.pause()
        numbers = [int(n) for n in re.findall(r"Item (\d{4}):", screen_text(app))]
        assert numbers and numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        assert numbers[0] < 960
        # Find reaches an entry that was never drawn.
        await pilot.press("ctrl+f", *"Item 0123")
        await until(pilot, lambda: "Item 0123: an answer." in screen_text(app), "the found entry")


async def test_a_flood_mounts_only_its_newest_commit(monkeypatch):
    """Each flood batch mounted its newest four commits, which the next batch froze at once.
    Now the newest alone is a widget: the answer or the call a flood ends with, reachable
    from the keyboard, and the call's running tool streams its output into it."""
    monkeypatch.setattr(bus_bridge, "SLICE", 3600.0)  # one batch (a slow machine would cut it)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        mounted: list[str] = []
        mount = app._transcript.mount

        def counted(*widgets, **kwargs):
            mounted.extend(getattr(w, "item_id", type(w).__name__) for w in widgets)
            return mount(*widgets, **kwargs)

        app._transcript.mount = counted  # type: ignore[method-assign]
        publish_items(app, 0, 30)
        call = {"id": "fc1", "type": "function_call", "call_id": "call-1", "name": "lookup", "arguments": "{}"}
        app.bus.publish(b.ItemCompleted(call, "fc1"))
        await until(pilot, lambda: len(shown_keys(app)) == 31, "every item")
        await pilot.pause()
        assert mounted == ["FrozenEntries", "fc1"], mounted  # was the frozen block and 4 entries
        assert shown_keys(app) == [f"m{n}" for n in range(30)] + ["fc1"]  # in order
        calls = list(app._transcript.query(ToolCallEntry))
        assert [c.item_id for c in calls] == ["fc1"]
        app.bus.publish(b.ToolOutputDelta("call-1", "streamed output line"))
        await until(pilot, lambda: "streamed output line" in calls[0]._live_output, "the live output")
        # The next flood freezes it and mounts only its own newest.
        mounted.clear()
        publish_items(app, 30, 20)
        await until(pilot, lambda: len(shown_keys(app)) == 51, "every item")
        assert mounted == ["m49"], mounted
        assert shown_keys(app) == [f"m{n}" for n in range(30)] + ["fc1"] + [f"m{n}" for n in range(30, 50)]


async def test_a_few_commits_in_a_batch_are_all_widgets(monkeypatch):
    """Below a flood, a batch's commits are widgets as before (a turn's worth)."""
    monkeypatch.setattr(bus_bridge, "SLICE", 3600.0)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        publish_items(app, 0, 3)
        await until(pilot, lambda: len(shown_keys(app)) == 3, "every item")
        await pilot.pause()
        assert [w.item_id for w in app._transcript.children if isinstance(w, TranscriptEntry)] == ["m0", "m1", "m2"]


async def test_a_key_cuts_the_batch_under_way_and_is_drawn_with_it(monkeypatch):
    """A key that reaches the app while a batch is handled stops the batch at its next
    event (only SLICE did), and the screen's next update draws what the batch handled
    together with the key: one update, where the key waited for the batch's own first."""
    monkeypatch.setattr(bus_bridge, "SLICE", 3600.0)  # never cut by time here
    log: list[tuple[str, int, str]] = []  # ("batch" | "paint", items shown, the composer's text)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    paint = Screen._compositor_refresh

    def painted(screen: Screen) -> None:
        paint(screen)
        if app.screen_stack and screen is app.screen:
            log.append(("paint", len(shown_keys(app)), app._composer.text))

    monkeypatch.setattr(Screen, "_compositor_refresh", painted)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        handle = app.bridge._drain

        async def batch() -> None:
            log.append(("batch", len(shown_keys(app)), app._composer.text))
            await handle()
            if typed and not app._composer.text:
                # In a terminal the screen's update timer is often due as a batch ends:
                # here it fires then, with the batch's commits to lay out, before the app
                # takes the key from its queue.
                app.screen._layout_required = True
                app.screen._on_timer_update()

        app.bridge._drain = batch  # type: ignore[method-assign]
        typed: list[bool] = []

        async def type_mid_batch(event: b.ItemDelta) -> None:  # a key comes while item 20 is handled
            if event.item_id == "m20" and not typed:
                typed.append(True)
                app.post_message(events.Key("k", "k"))

        app.bridge.route({b.ItemDelta: type_mid_batch})
        publish_items(app, 0, 300)
        await until(pilot, lambda: len(shown_keys(app)) == 300, "every item")
        await pilot.pause()
        assert shown_keys(app) == [f"m{n}" for n in range(300)]  # nothing lost or reordered
        batches = [entry for entry in log if entry[0] == "batch"]
        assert len(batches) >= 2, log  # the one batch was cut (time never cuts it here)
        first = log.index(batches[0])
        after = next(entry for entry in log[first:] if entry[0] == "paint")
        # The first update after the cut shows the key and the items before it, not the rest.
        assert after[2] == "k" and 20 <= after[1] < 300, log


async def test_the_turns_reader_waits_while_a_key_is_on_its_way(monkeypatch):
    """Between its slices the reader of a flood gives way through the bridge: it waits
    from the moment a key is in the app's queue until the key is drawn, so each hop of
    the key is not one reader's slice apart. It never waits longer than HOLD_MAX."""
    monkeypatch.setattr(bus_bridge, "HOLD_MAX", 3600.0)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        bridge = app.bridge
        assert app.bus.give_way == bridge.give_way  # what the turn's reader calls
        await asyncio.wait_for(bridge.give_way(), 5)  # nothing waits: a turn of the loop
        bridge.key_posted()
        reader = asyncio.create_task(bridge.give_way())
        for _ in range(5):
            await pilot.pause()
        assert not reader.done()  # the key is in the queue
        bridge.key_taken()
        bridge.key_handled(app._composer)  # handed to the composer: held until it is drawn
        assert bridge.held and not reader.done()
        await until(pilot, reader.done, "the key drawn, the reader on its way")
        assert not bridge.held
        # A key that never comes (its app closing) costs the reader HOLD_MAX, not the turn.
        monkeypatch.setattr(bus_bridge, "HOLD_MAX", 0.01)
        bridge.key_posted()
        await asyncio.wait_for(bridge.give_way(), 5)


async def test_a_key_leaves_a_small_batch_whole(monkeypatch):
    """A paced stream's batch is a few events: cutting it saves the key nothing and costs
    a layout more, so a key cuts only a batch with KEY_CUT_MIN events or more left."""
    monkeypatch.setattr(bus_bridge, "SLICE", 3600.0)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        batches: list[int] = []
        handle = app.bridge._drain

        async def batch() -> None:
            batches.append(len(app.bridge._inbox))
            await handle()

        app.bridge._drain = batch  # type: ignore[method-assign]

        async def type_mid_batch(event: b.ItemDelta) -> None:
            if event.item_id == "m1":
                app.post_message(events.Key("k", "k"))

        app.bridge.route({b.ItemDelta: type_mid_batch})
        publish_items(app, 0, 3)  # 9 events, the key typed at the 5th: 4 left
        await until(pilot, lambda: len(shown_keys(app)) == 3 and app._composer.text == "k", "the items and the key")
        assert batches == [9], batches  # one batch, not cut for the key
