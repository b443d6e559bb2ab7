"""Long messages: the segmenter's cuts, and the live pane that freezes old segments."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.tui import GatedServer, make_app, until
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from textual.widgets import Markdown

from rivulet.core.turn import bus as b
from rivulet.widgets.entries import AssistantEntry
from rivulet.widgets.frozen import FrozenMarkdown, MarkdownTail
from rivulet.widgets.live import LiveMessage
from rivulet.widgets.segmenter import Segmenter, split_segments
from rivulet.widgets.transcript import Transcript

BLOCK = ("## Part {n}\n\nA paragraph with **bold** and `code`, long enough to matter. {pad}\n\n"
         "- a list item\n- another item\n\n```python\nprint({n})\n```\n\n")


def long_text(blocks: int, pad: int = 200) -> str:
    return "".join(BLOCK.format(n=n, pad="word " * (pad // 5)) for n in range(blocks))


def top_level_blocks(markdown: str) -> list[tuple[str, str]]:
    """(token type, content) of the top-level block tokens, the way Markdown sees them."""
    tokens = MarkdownIt("gfm-like").parse(markdown)
    return [(t.type, t.content) for t in tokens if t.level == 0 and t.type not in ("paragraph_close",)]


def test_soft_cuts_keep_the_rendering():
    text = long_text(60)
    segments = split_segments(text, soft_limit=1000, hard_limit=100_000)
    assert len(segments) > 5
    assert "".join(segments) == text  # soft cuts add nothing and lose nothing
    # Every segment parses into the same blocks it had inside the whole document.
    whole = top_level_blocks(text)
    assert [b for s in segments for b in top_level_blocks(s)] == whole
    for seg in segments[1:]:
        assert not seg[0].isspace()  # a cut never starts a segment with an indented line


def test_no_cut_inside_a_small_code_fence():
    code = "```\n" + "x = 1\n\n" * 300 + "```\n"  # blank lines inside the fence
    text = "intro\n\n" + code + "\nafter\n"
    segments = split_segments(text, soft_limit=100, hard_limit=100_000)
    assert "".join(segments) == text
    assert any(code in s for s in segments)


def test_hard_cut_closes_and_reopens_a_huge_fence():
    body = "".join(f"line {i}\n" for i in range(2000))
    text = "before\n\n~~~~rust\n" + body + "~~~~\n\nafter\n"
    segments = split_segments(text, soft_limit=500, hard_limit=2000)
    assert len(segments) > 3
    code_lines = []
    for seg in segments:
        for tok in MarkdownIt("gfm-like").parse(seg):
            if tok.type == "fence":
                assert tok.info == "rust"  # reopened with the same opener
                code_lines.append(tok.content)
    assert "".join(code_lines) == body  # every code line once, in order


def test_hard_cut_in_a_paragraph_without_blank_lines():
    text = "".join(f"sentence number {i} of a very long paragraph\n" for i in range(1000))
    segments = split_segments(text, soft_limit=500, hard_limit=3000)
    assert len(segments) > 5 and "".join(segments) == text
    assert all(len(s) < 3000 + 100 for s in segments)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=80))
def test_piecewise_feed_cuts_where_a_whole_feed_does(sizes):
    text = long_text(25, pad=100) + "```\n" + "code\n" * 400 + "```\n" + long_text(5)
    seg = Segmenter(soft_limit=700, hard_limit=1500)
    pieces: list[str] = [""]
    pos = 0
    for size in sizes * (len(text) // sum(sizes) + 1):
        if pos >= len(text):
            break
        out = seg.feed(text[pos:pos + size])
        pieces[-1] += out[0]
        pieces.extend(out[1:])
        pos += size
    assert [p for p in pieces if p] == split_segments(text, soft_limit=700, hard_limit=1500)


async def _stream(app, pilot, text: str, chunk: int = 700) -> LiveMessage:
    item = {"id": "msg_long", "type": "message", "role": "assistant", "content": []}
    app.bus.publish(b.TurnStarted(1, "long"))
    app.bus.publish(b.ItemStarted(item, "msg_long"))
    await until(pilot, lambda: "msg_long" in app.live, "the live pane")
    pane = app.live["msg_long"]
    assert isinstance(pane, LiveMessage)
    for i in range(0, len(text), chunk):
        app.bus.publish(b.ItemDelta("msg_long", "output_text", text[i:i + chunk]))
        if i % (chunk * 10) == 0:
            await pilot.pause()
    await until(pilot, lambda: pane.shown == len(text) and not pane.flushing, "every delta on screen")
    await pilot.pause()
    return pane


async def test_a_long_stream_keeps_a_bounded_number_of_live_widgets(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "c.toml")))
    text = long_text(150)  # ~55 KB
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        pane = await _stream(app, pilot, text)
        # Two widgets however long: the label, and the message (finished segments + open end).
        assert len(list(pane.walk_children())) == 2 and not pane.query(Markdown)
        tail = pane.query_one(MarkdownTail)
        assert len(tail.segments) == pane.segments - 1 > 3
        # Nothing lost or doubled: finished segments + the open one are the message, in order.
        assert "".join(tail.segments) + tail.text == text
        assert len(tail._frozen) > 50 and tail.size.height >= len(tail._lines)  # they take their rendered height
        # The commit: frozen lines first, then Markdown widgets, the whole text once.
        app.bus.publish(b.ItemCompleted({"id": "msg_long", "type": "message", "role": "assistant",
                                         "content": [{"type": "output_text", "text": text}]}, "msg_long"))
        await until(pilot, lambda: "msg_long" not in app.live and app.query(AssistantEntry), "the commit")
        await pilot.pause()
        entry = app.query_one(AssistantEntry)
        assert entry.query_one(FrozenMarkdown).text + "".join(m.source for m in entry.query(Markdown)) == text
        assert not app.query_one(Transcript).query(LiveMessage)


async def test_frozen_lines_never_carry_escape_sequences(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "c.toml")))
    hostile = "\x1b]52;c;aGVsbG8=\x07 steal the clipboard \x1b[2J\n\n"
    text = hostile + long_text(40) + hostile * 3
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        pane = await _stream(app, pilot, text, chunk=333)
        frozen = pane.query_one(MarkdownTail)
        assert frozen.segments
        rendered = "".join(seg.text for y in range(frozen.size.height) for seg in frozen.render_line(y))
        assert "\x1b" not in rendered and "\x07" not in rendered
        assert "␛]52;c;aGVsbG8=␇" in rendered  # made visible, not dropped


@pytest.mark.parametrize("theme", ["rivulet-dark", "rivulet-light"])
async def test_frozen_segments_follow_width_and_theme(tmp_path, monkeypatch, theme):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "c.toml")))
    app = make_app(GatedServer([]))
    async with app.run_test(size=(120, 40)) as pilot:
        app.theme = theme
        pane = await _stream(app, pilot, long_text(60))
        frozen = pane.query_one(MarkdownTail)
        assert frozen.segments
        wide = frozen.size.height
        await pilot.resize_terminal(60, 40)
        await pilot.pause()
        await pilot.pause()
        assert frozen.size.height > wide  # re-wrapped for the narrower screen
        assert all(len(frozen.render_line(y)) <= frozen.size.width for y in range(frozen.size.height))
