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


def lines(n: int) -> str:
    return "\n\n".join(f"paragraph {k}" for k in range(n))  # a blank line between: 2n - 1 rows


async def test_height_grows_in_steps_and_text_within_a_step_needs_no_layout():
    app = TailApp()
    async with app.run_test(size=(60, 30)) as pilot:
        tail = app.query_one(MarkdownTail)
        layouts: list[bool] = []
        real_refresh = tail.refresh

        def spy(*regions, **kw):
            layouts.append(kw.get("layout", False))
            return real_refresh(*regions, **kw)

        tail.set_text(lines(1))
        await pilot.pause()
        assert tail.size.height == 4  # one row of text, a step reserved
        tail.refresh = spy
        tail.set_text(lines(2))  # three rows: still within the step
        assert layouts == [False]  # what set_text asked for: a repaint
        await pilot.pause()
        assert tail.size.height == 4
        text = "".join(seg.text for y in range(4) for seg in tail.render_line(y))
        assert "paragraph 0" in text and "paragraph 1" in text
        tail.set_text(lines(3))  # five rows: the next step
        assert layouts == [False, True]  # now a layout
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
