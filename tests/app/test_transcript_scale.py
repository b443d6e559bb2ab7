"""The transcript at scale: a batch of commits is one layout, the transcript holds a
bounded number of widgets however many items it shows, a resumed session draws its
last answer before any older entry, and an old entry (data, not a widget) can still be
found, clicked for its raw item, and selected for copying."""

from __future__ import annotations

import json
import re

from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from textual import events
from textual.geometry import Offset
from textual.screen import Screen
from textual.selection import Selection
from textual.widgets import TextArea

from rivulet.app import bus_bridge
from rivulet.app.handlers.commits import FLOOD_WIDGETS
from rivulet.app.resume import RESUME_WIDGETS
from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.store.session import Session, SessionMeta
from rivulet.core.turn import bus as b
from rivulet.core.turn.history import History
from rivulet.widgets.entries import TranscriptEntry
from rivulet.widgets.frozen_entries import KEEP_ENTRIES
from rivulet.widgets.inspector import RawItemScreen
from rivulet.widgets.live import LivePane


def message(n: int) -> dict:
    return {"id": f"m{n}", "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": f"Item {n}: an answer."}]}


def publish_items(app: RivuletApp, start: int, count: int) -> None:
    """Items streamed and committed, all published before the app handles any (one batch)."""
    for n in range(start, start + count):
        item = message(n)
        app.bus.publish(b.ItemStarted({**item, "content": []}, item["id"]))
        app.bus.publish(b.ItemDelta(item["id"], "output_text", f"Item {n}: "))
        app.bus.publish(b.ItemCompleted(item, item["id"]))


def shown(app: RivuletApp) -> int:
    transcript = app._transcript
    frozen = transcript.frozen
    return len([w for w in transcript.children if isinstance(w, TranscriptEntry)]) + \
        (len(frozen.entries) if frozen is not None else 0)


def screen_text(app: RivuletApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


class Spy:
    """Counts the transcript's mounts, the bridge's batches, and the screen's layout
    passes made while a batch was being handled."""

    def __init__(self, monkeypatch) -> None:
        self.mounts = self.layouts = self.batches = self.layouts_in_batch = 0
        layout = Screen._refresh_layout

        def counted(screen, *args, **kwargs):
            self.layouts += 1
            return layout(screen, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counted)

    def watch(self, app: RivuletApp) -> None:
        mount = app._transcript.mount

        def counted(*args, **kwargs):
            self.mounts += 1
            return mount(*args, **kwargs)

        app._transcript.mount = counted  # type: ignore[method-assign]
        drain = app.bridge.drain

        async def counted_drain() -> None:
            self.batches += 1
            before = self.layouts
            await drain()
            self.layouts_in_batch += self.layouts - before

        app.bridge.drain = counted_drain  # type: ignore[method-assign]

    def reset(self) -> None:
        self.mounts = self.layouts = self.batches = self.layouts_in_batch = 0


async def batch_cost(monkeypatch, count: int) -> tuple[int, int, int]:
    """(batches, mounts, layout passes while handling them) for `count` items published at once."""
    spy = Spy(monkeypatch)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        spy.watch(app)
        spy.reset()
        publish_items(app, 0, count)
        await until(pilot, lambda: shown(app) == count, "every item shown")
        await pilot.pause()
        assert not app._transcript.query(LivePane)  # committed in the batch it started in: never a pane
        assert f"Item {count - 1}: an answer." in screen_text(app)
        return spy.batches, spy.mounts, spy.layouts_in_batch


async def test_a_batch_of_commits_is_a_few_mounts_and_no_layout_until_it_is_done(monkeypatch):
    monkeypatch.setattr(bus_bridge, "SLICE", 3600.0)  # never cut here (a slow machine would)
    small = await batch_cost(monkeypatch, 20)
    large = await batch_cost(monkeypatch, 400)
    # One batch, laid out once after it (none while it is handled, where each mount was
    # a layout pass); a flood's newest commit becomes a widget (it was the newest
    # KEEP_ENTRIES before branch flood: mounted only to be frozen by the next batch) and
    # the frozen block is made once, the rest is data.
    assert large == small == (1, FLOOD_WIDGETS + 1, 0), f"20 items: {small}, 400 items: {large}"


async def test_a_batch_cut_into_slices_keeps_every_item_in_order(monkeypatch):
    """Cut after every event (as a flood is, after SLICE seconds), with a key between:
    the key is handled before the rest of the batch, and nothing is lost or reordered."""
    monkeypatch.setattr(bus_bridge, "SLICE", 0.0)
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        seen: list[tuple[int, str]] = []  # (items shown, composer text) as each slice starts
        drain = app.bridge.drain

        async def watched() -> None:
            seen.append((shown(app), app._composer.text))
            await drain()

        app.bridge.drain = watched  # type: ignore[method-assign]
        publish_items(app, 0, 200)
        app.post_message(events.Key("k", "k"))  # typed after the items came, through the app as a key is
        await until(pilot, lambda: shown(app) == 200, "every item")
        frozen = app._transcript.frozen
        assert frozen is not None
        keys = [key for key, _, _ in frozen.entries] + [w.item_id for w in app._transcript.children
                                                          if isinstance(w, TranscriptEntry)]
        assert keys == [f"m{n}" for n in range(200)]
        # Many slices, and the key was handled before most of the batch was.
        assert len(seen) > 10 and any(text == "k" and count < 100 for count, text in seen)


async def test_the_transcript_holds_a_bounded_number_of_widgets(tmp_path):
    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for n in range(60):  # one at a time, as a slow stream commits them
            publish_items(app, n, 1)
            await until(pilot, lambda n=n: shown(app) == n + 1, "the item")
        widgets_then = len(list(app._transcript.query("*")))
        for start in range(60, 3060, 500):  # then floods
            publish_items(app, start, 500)
            await until(pilot, lambda start=start: shown(app) == start + 500, "the flood")
        await pilot.pause()
        assert shown(app) == 3060
        assert len(list(app._transcript.query("*"))) <= widgets_then
        frozen = app._transcript.frozen
        assert frozen is not None
        # Lines are made for what can be seen (a screen's worth per batch), not for every
        # entry that went by, and only those near the view are kept.
        assert frozen.rendered < len(frozen.entries) // 4 and len(frozen._cache) < 100
        assert "Item 3059: an answer." in screen_text(app)


def long_session(turns: int) -> Session:
    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n:04d}"), key=f"user-{n + 1}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"Answer **{n:04d}**."}]}, "req-1", f"m{n}")
    return Session(SessionMeta("long", 0, "/", "m", "u"), history)


async def test_a_resumed_session_draws_its_last_answer_before_older_entries(tmp_path):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=long_session(2000), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Answer 1999." in screen_text(app), "the last answer on screen")
        frozen = app._transcript.frozen
        assert frozen is not None and len(frozen.entries) == 4000 - RESUME_WIDGETS
        assert frozen.rendered <= 2 * 30  # two screens at most: the other ~3,900 are data until scrolled to
        await pilot.press("a")  # typing works at once
        assert app._composer.text == "a"
        # Scrolling up draws older entries (data until now) as they come into view.
        for _ in range(8):
            app.action_scroll_transcript("page_up")
            await pilot.pause()
        assert frozen.pinned and frozen.rendered > 10
        turns = [int(n) for n in re.findall(r"question (\d{4})", screen_text(app))]
        assert turns and max(turns) < 2000 - KEEP_ENTRIES // 2  # older than every widget entry
        assert turns == list(range(turns[0], turns[0] + len(turns)))  # in order, none missing


async def test_an_old_entry_is_found_clicked_and_selected(tmp_path):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=long_session(300), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Answer 0299." in screen_text(app), "the resumed session")
        frozen = app._transcript.frozen
        assert frozen is not None and "question 0017" not in screen_text(app)
        await pilot.press("ctrl+f", *"question 0017")
        await until(pilot, lambda: "question 0017" in screen_text(app), "the old match in view")
        index = next(i for i, (key, _, _) in enumerate(frozen.entries) if key == "user-18")
        assert frozen.lo <= index < frozen.hi
        line = frozen.line_of(index) + 1  # under the entry's top margin
        # Selected with the mouse, it copies as its text.
        app.screen.selections = {frozen: Selection(Offset(0, line), Offset(40, line))}
        assert "question 0017" in (app.screen.get_selected_text() or "")
        # A click opens the raw item.
        await pilot.press("escape")
        await pilot.pause()
        top = frozen.region.y
        await pilot.click(offset=(5, top + line))
        await until(pilot, lambda: isinstance(app.screen, RawItemScreen) and app.screen.query(TextArea), "raw item")
        assert json.loads(app.screen.query_one(TextArea).text) == it.user_message("question 0017")
