"""Issue 36, item 5: one long line (a base64 blob, minified JSON, a log line) streamed into
the live answer made every frame render the whole line again: quadratic. The open block is
now cut at a row's start too: a frame renders a bounded part of the line, and the rows are
exactly those of the uncut line, at any width, live and committed."""

from __future__ import annotations

import base64
import json
import random

import pytest
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, settled, until
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from rivulet.widgets import frozen
from rivulet.widgets.code_wrap import MARK
from rivulet.widgets.entries import AssistantEntry
from rivulet.widgets.frozen import FrozenMarkdown, MarkdownTail, markdown, render_lines
from rivulet.widgets.live import LiveMessage
from rivulet.widgets.open_block import CUT_AT, same

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py

_rnd = random.Random(36)
BLOB = base64.b64encode(_rnd.randbytes(45_000)).decode()  # 60 KB, no space
JSON = json.dumps([{"id": n, "name": f"item {n}", "tags": ["a", "b"]} for n in range(1_500)], separators=(",", ":"))
PROSE = "".join(_rnd.choice(["stream ", "the ", "answer, ", "a **bold** word ", "and `code` ", "rows. "])
                for _ in range(9_000))
LOG = " ".join(f"[12:00:{n % 60:02d}] INFO worker-{n % 7} batch={n} status=ok;" for n in range(1_200))
LINES = {  # each is one Markdown block of one long line, as the uncut renderer draws it
    "base64": BLOB,
    "minified JSON": JSON,
    "prose with no newline": PROSE,
    "after a first line": "The blob:\n" + BLOB,
    "in a code fence": "```\n" + LOG,
}


class Tail(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownTail(step=4)


def uncut(text: str, tail: MarkdownTail) -> list:
    theme = tail.app.current_theme
    return render_lines(markdown(text, theme), tail.content_size.width, theme)


@pytest.mark.parametrize("name", sorted(LINES))
async def test_the_rows_of_a_cut_line_are_the_uncut_rows_at_two_widths(name):
    text = LINES[name]
    app = Tail()
    async with app.run_test(size=(80, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        for columns in (80, 57):
            await pilot.resize_terminal(columns, 30)
            await pilot.pause()
            tail.set_text("")  # a new segment
            for n, end in enumerate(range(500, len(text) + 500, 500)):
                tail.add([text[end - 500:end]])
                if n % 40 == 39:  # now and then, while it streams (not only at the end)
                    assert same(tail._lines, uncut(text[:end], tail)), (columns, end)
            assert tail._done, "the line was cut"  # rows above a cut, kept
            assert same(tail._lines, uncut(text, tail))
        # A resize draws it whole again, at the new width, and cuts it anew.
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        assert same(tail._lines, uncut(text, tail))
        tail.add(["A few more words."])
        assert same(tail._lines, uncut(text + "A few more words.", tail))


async def test_a_cut_code_line_goes_on_with_the_wrap_mark():
    app = Tail()
    async with app.run_test(size=(60, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        await pilot.pause()
        for end in range(500, 20_000, 500):
            tail.add([("```\n" + LOG)[end - 500:end]])
        rows = [line.text.strip() for line in tail._lines]
        cut = len(tail._done)
        assert cut and rows[cut].startswith(MARK.strip()) and rows[cut - 1].startswith(MARK.strip())


async def test_markdown_that_closes_below_a_cut_is_drawn_as_the_uncut_line_draws_it():
    """A code span opened above a cut and closed below it: the block is drawn whole again."""
    text = "`" + BLOB[:30_000] + "` and after it"
    app = Tail()
    async with app.run_test(size=(80, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        await pilot.pause()
        for end in range(500, len(text) + 500, 500):
            tail.add([text[end - 500:end]])
        tail.add([""], final=True)
        assert same(tail._lines, uncut(text, tail))


async def test_each_frame_renders_a_bounded_part_of_a_one_megabyte_line(monkeypatch):
    """Count the work: the characters given to the renderer on each frame, while a 1 MB
    answer on one line streams in small deltas (before: all of the line, on every frame)."""
    rendered: list[int] = []
    real = frozen.render_lines

    def counted(renderable, width, theme):
        rendered.append(len(renderable.markup))
        return real(renderable, width, theme)

    monkeypatch.setattr(frozen, "render_lines", counted)
    line = base64.b64encode(random.Random(5).randbytes(750_000)).decode()  # 1 MB, nothing repeated (cached)
    app = Tail()
    async with app.run_test(size=(100, 40)) as pilot:
        pane = LiveMessage({"id": "m", "type": "message"}, "m")
        await app.query_one(VerticalScroll).mount(pane)
        await pilot.pause()
        total = 0
        for n, start in enumerate(range(0, len(line), 100)):  # deltas of 100 characters
            pane.add_delta("output_text", line[start:start + 100])
            if n % 40 == 39:  # a frame every 40 deltas
                rendered.clear()
                await pane.flush()
                total += sum(rendered)
                assert sum(rendered) <= 4 * CUT_AT, f"{sum(rendered):,} characters rendered at {start:,}"
        await pane.flush(force=True)
        assert pane.shown == len(line) and pane.query_one(MarkdownTail)._done
        assert total <= 2 * len(line)  # about once each (before: 42 times, the whole line each frame)


def long_answer_app(text: str):
    payloads = [created(), *message_events("m", text, chunks=60), completed([message("m", text)])]
    done = next(i for i, p in enumerate(payloads) if json.loads(p)["type"] == "response.output_text.done")
    server = GatedServer(payloads, gate_at={0: done})  # every delta sent, the item not done
    return server, make_app(server)


async def test_the_committed_long_line_has_the_live_cells_and_rewraps_uncut_on_a_resize():
    text = BLOB[:40_000] + " and the end."
    server, app = long_answer_app(text)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) and p.shown == len(text) and not p.flushing
                                       for p in app.live.values()), "the live answer, all of it")
        tail = app.query_one(LiveMessage).query_one(MarkdownTail)
        await pilot.pause()  # laid out with the scrollbar the long answer brings
        await until(pilot, lambda: tail.text == text and tail._done and tail._key
                    and tail._key[0] == tail.content_size.width, "drawn, and cut")
        live, live_width = list(tail._lines), tail.content_size.width
        assert same(live, uncut(text, tail))
        server.release()
        await until(pilot, lambda: app.query(AssistantEntry) and not app.live and settled(app), "the commit")
        body = app.query_one(AssistantEntry).query_one(FrozenMarkdown)
        await until(pilot, lambda: body._width == live_width and bool(body._lines), "the committed answer drawn")
        assert len(body._lines) == len(live) + 1 and same(body._lines[:-1], live)  # (+ the blank after it)
        await pilot.resize_terminal(61, 30)  # after the commit: the whole line, wrapped at the new width
        await until(pilot, lambda: body.content_size.width != live_width and body._lines
                    and body._width == body.content_size.width, "the new width")
        theme = app.current_theme
        assert same(body._lines[:-1], render_lines(markdown(text, theme), body.content_size.width, theme))
