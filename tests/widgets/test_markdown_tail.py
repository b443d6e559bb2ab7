"""The live message's open tail: rendered lines, a height that grows a step at a time,
and a new text that keeps the height asks for a repaint only (no layout pass)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from rivulet.widgets.frozen import MarkdownTail


class TailApp(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownTail(step=4, id="tail")


def spy_refresh(tail: MarkdownTail) -> list[tuple[tuple, bool]]:
    """Every refresh the tail asks for from now on: (its regions, whether a layout)."""
    calls: list[tuple[tuple, bool]] = []
    real_refresh = tail.refresh

    def spy(*regions, **kw):
        calls.append((regions, kw.get("layout", False)))
        return real_refresh(*regions, **kw)

    tail.refresh = spy
    return calls


def lines(n: int) -> str:
    return "\n\n".join(f"paragraph {k}" for k in range(n))  # a blank line between: 2n - 1 rows


async def test_height_grows_in_steps_and_text_within_a_step_needs_no_layout():
    app = TailApp()
    async with app.run_test(size=(60, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        tail.set_text(lines(1))
        await pilot.pause()
        assert tail.size.height == 4  # one row of text, a step reserved
        calls = spy_refresh(tail)
        tail.set_text(lines(2))  # three rows: still within the step
        assert [layout for _, layout in calls] == [False]  # what set_text asked for: a repaint
        await pilot.pause()
        assert tail.size.height == 4
        text = "".join(seg.text for y in range(4) for seg in tail.render_line(y))
        assert "paragraph 0" in text and "paragraph 1" in text
        tail.set_text(lines(3))  # five rows: the next step
        assert [layout for _, layout in calls] == [False, True]  # now a layout
        await pilot.pause()
        assert tail.size.height == 8
        assert "".join(seg.text for seg in tail.render_line(7)).strip() == ""  # reserved, blank


async def test_markdown_is_rendered_and_markup_is_not_interpreted():
    app = TailApp()
    async with app.run_test(size=(60, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        tail.set_text("**bold** and [red]not markup[/red]\n")
        await pilot.pause()
        row = "".join(seg.text for seg in tail.render_line(0))
        assert "bold and [red]not markup[/red]" in row  # Markdown rendered, Rich markup left as text
        bold = [seg for seg in tail.render_line(0) if seg.text.startswith("bold")]
        assert bold and bold[0].style is not None and bold[0].style.bold


async def test_follows_width_changes():
    app = TailApp()
    async with app.run_test(size=(60, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        tail.set_text(" ".join(["word"] * 30) + "\n")  # 149 characters: 3 rows at 58 columns
        await pilot.pause()
        wide = len([y for y in range(tail.size.height) if "".join(s.text for s in tail.render_line(y)).strip()])
        await pilot.resize_terminal(30, 30)
        await pilot.pause()
        narrow = len([y for y in range(tail.size.height) if "".join(s.text for s in tail.render_line(y)).strip()])
        assert narrow > wide


DOC = (
    "## How the stream is handled\n\nThe client reads events one by one, and **commits** only whole items.\n\n"
    "- the cost of parsing;\n- the cost of drawing;\n- the cost of layout.\n\n"
    "```python\nasync def follow(stream):\n\n    async for event in stream:\n        yield event\n```\n\n"
    "| measure | unit |\n|---|---|\n| CPU | s per s |\n| latency | ms |\n\n"
    "1. Open the response.\n2. Stream the answer.\n\n- a loose list\n\n- its second item\n\n---\n\n"
    "After a rule.\n\n> a quote\n\nA last paragraph with `inline code` and *emphasis*.\n"
)


def rows(tail: MarkdownTail) -> list[str]:
    return ["".join(seg.text for seg in tail.render_line(y)).rstrip() for y in range(len(tail._lines))]


async def test_fed_piecewise_it_shows_what_the_whole_text_renders():
    """The blocks before the last are rendered once and kept; whatever the pieces the text
    came in, the lines are those of the whole text (code fences with blank lines inside,
    lists and tables are never cut)."""
    from rivulet.widgets.frozen import markdown, render_lines

    app = TailApp()
    async with app.run_test(size=(60, 40)) as pilot:
        tail = app.query_one(MarkdownTail)
        tail.set_text(DOC)
        await pilot.pause()
        whole = rows(tail)
        expected = ["".join(seg.text for seg in line).rstrip() for line in
                    render_lines(markdown(DOC, app.current_theme), tail.content_size.width, app.current_theme)]
        assert whole == expected
        for size in (1, 7, 40):
            tail.set_text("")  # a new segment: the tail starts over
            for end in range(size, len(DOC) + size, size):
                tail.set_text(DOC[:end])
            await pilot.pause()
            assert rows(tail) == whole, size
        assert len(tail._blocks) > 5  # it was cut into blocks


async def test_a_frame_repaints_the_open_block_only():
    app = TailApp()
    async with app.run_test(size=(60, 40)) as pilot:
        tail = app.query_one(MarkdownTail)
        tail.set_text("first paragraph\n\nsecond paragraph\n\nthird, still being ")
        await pilot.pause()
        calls = spy_refresh(tail)
        tail.set_text("first paragraph\n\nsecond paragraph\n\nthird, still being written")
        (region,), layout = calls[-1]
        # rows 0-2: "first paragraph", the blank between, "second paragraph": drawn already;
        # the open block (its blank line, then its text) from row 3
        assert not layout and region.y == 3


async def test_a_finished_segment_moves_into_the_same_widget_without_a_layout_pass():
    """At a segment's end its lines become the finished segments' lines (rendered as the
    committed entry renders them): the height stays, so the screen is repainted, not laid out."""
    from rivulet.widgets.frozen import markdown, render_lines, render_segment

    app = TailApp()
    async with app.run_test(size=(60, 40)) as pilot:
        tail = app.query_one(MarkdownTail)
        first = "A finished segment.\n\nIts second paragraph.\n\n"
        tail.set_text(first + "The next one begins")  # 5 rows with a step of 4: 8 reserved
        await pilot.pause()
        height = tail.size.height
        calls = spy_refresh(tail)
        tail.freeze(first)
        tail.set_text("The next one begins here")
        assert [layout for _, layout in calls] == [False]
        await pilot.pause()
        assert tail.size.height == height and tail.segments == [first] and tail.text == "The next one begins here"
        width = tail.content_size.width
        whole = render_lines(markdown(first, app.current_theme), width, app.current_theme)  # rendered afresh
        done = ["".join(seg.text for seg in line).rstrip() for line in whole] + [""]
        assert rows(tail)[:len(done)] == done
        assert rows(tail)[len(done)] == "The next one begins here"
        # The commit's render of that segment is the lines that streamed (no second render).
        assert render_segment(first, width, app.current_theme) == tail._frozen
