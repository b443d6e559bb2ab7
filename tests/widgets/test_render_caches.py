"""The rendered-lines caches stay bounded however long a chat runs (issue 22: a cache of
1,024 segments and one of 1,024 blocks, ~4 kB per drawn line, grew a 240-turn chat by
about 100 MB), and the live pane still hands its lines to the committed entry."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.strip import Strip

from rivulet.widgets import frozen
from rivulet.widgets.frozen import Handoff, LinesCache, MarkdownTail, render_segment


class TailApp(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownTail(step=4, id="tail")


def strips(n: int) -> list[Strip]:
    return [Strip.blank(10) for _ in range(n)]


def test_lines_cache_is_bounded_by_lines_and_keeps_the_newest():
    cache: LinesCache[list[Strip]] = LinesCache(100, size=len)
    for k in range(500):
        cache.put(("segment", k, "theme"), strips(7))
        assert cache.lines <= 100
    assert cache.lines == sum(len(v) for v in cache.values())
    assert ("segment", 499, "theme") in cache and ("segment", 0, "theme") not in cache
    cache.get_recent(("segment", 486, "theme"))  # used: the newest again, evicted last
    cache.put(("segment", 500, "theme"), strips(7))
    assert ("segment", 486, "theme") in cache
    big = strips(150)  # one render larger than the bound is kept alone, not dropped at once
    cache.put(("huge", 1, "theme"), big)
    assert list(cache.values()) == [big]


def test_handoff_keeps_the_newest_tails_segments_until_taken():
    handoff = Handoff(keep=2)
    mine = strips(3)
    handoff.put(1, ("a", 80, "t"), mine)
    handoff.put(1, ("b", 80, "t"), strips(2))
    assert handoff.take(("a", 80, "t")) is mine
    assert handoff.take(("a", 80, "t")) is None  # taken once
    handoff.put(2, ("c", 80, "t"), strips(4))
    handoff.put(3, ("d", 80, "t"), strips(5))  # a third tail: the first one's "b" goes
    assert handoff.take(("b", 80, "t")) is None
    assert handoff.lines == 9
    for n in range(4, 200):  # tails whose segments nobody takes (discarded panes)
        handoff.put(n, (f"seg {n}", 80, "t"), strips(10))
    assert handoff.lines == 20


def test_segment_cache_stays_bounded_over_many_segments(monkeypatch):
    from textual.theme import BUILTIN_THEMES

    monkeypatch.setattr(frozen._cache, "max_lines", 100)
    theme = BUILTIN_THEMES["textual-dark"]
    for k in range(120):  # ~3 lines each: 360 lines rendered
        render_segment(f"Answer **{k}**, a paragraph.\n\n- one item\n", 60, theme)
        assert frozen._cache.lines <= frozen._cache.max_lines
    assert frozen._cache.lines > frozen._cache.max_lines // 2  # it does keep renders


async def test_a_long_streamed_message_keeps_the_block_cache_bounded_and_hands_off_every_segment(monkeypatch):
    monkeypatch.setattr(frozen._blocks, "max_lines", 60)
    monkeypatch.setattr(frozen._cache, "max_lines", 100)
    app = TailApp()
    async with app.run_test(size=(60, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        text, segments = "", []
        for k in range(40):  # 200 frames, each drawing a new open block: ~600 lines of block renders
            for word in (f"Paragraph {k} ", "grows ", "word ", "by ", "word.\n\n"):
                text += word
                tail.set_text(text)
                await pilot.pause()  # a frame: the open block is laid out and rendered
                assert frozen._blocks.lines <= frozen._blocks.max_lines
            if k % 10 == 9:  # a segment ends every ten paragraphs
                tail.freeze(text)
                segments.append(text)
                text = ""
                tail.set_text(text)
        width, theme = tail.content_size.width, app.current_theme
        frozen_lines = list(tail._frozen)
        # Other renders in between (other entries) do not push the live pane's lines out:
        for k in range(200):
            render_segment(f"Unrelated {k}.\n", width, theme)
        assert frozen._cache.lines <= 100
        handed = [line for segment in segments for line in render_segment(segment, width, theme)]
        assert len(handed) == len(frozen_lines)
        assert all(a is b for a, b in zip(handed, frozen_lines, strict=True))  # the streamed lines, not a second render
