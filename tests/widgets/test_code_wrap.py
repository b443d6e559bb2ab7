"""Code blocks soft-wrap with a continuation mark (widgets/code_wrap.py): nothing is cut,
the rows hold exactly the line's characters, and copying takes the original lines."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from rivulet.themes import THEMES
from rivulet.widgets.code_wrap import MARK, WrappedCode, wrap_line
from rivulet.widgets.frozen import markdown, render_lines, render_segment

LONG = "value = " + "+".join(f"item{n}" for n in range(30))


def unwrapped(rows: list[Text]) -> str:
    return "".join(r.plain.removeprefix(MARK) if n else r.plain for n, r in enumerate(rows))


def test_a_long_line_becomes_marked_rows_that_hold_it_all():
    rows = wrap_line(Text(LONG), 40)
    assert len(rows) > 1
    assert all(r.cell_len <= 40 for r in rows)
    assert rows[0].plain == LONG[:40] and all(r.plain.startswith(MARK) for r in rows[1:])
    assert unwrapped(rows) == LONG  # no character lost or added


def test_a_short_line_is_left_alone_and_wide_characters_are_never_split():
    assert [r.plain for r in wrap_line(Text("short"), 40)] == ["short"]
    wide = "漢字" * 15  # 60 cells
    rows = wrap_line(Text(wide), 21)
    assert all(r.cell_len <= 21 for r in rows) and unwrapped(rows) == wide


def test_the_renderable_draws_every_row_at_the_width():
    console = Console(width=30, force_terminal=True, color_system=None)
    lines = console.render_lines(WrappedCode(Text(LONG + "\nend")), console.options, pad=False)
    plain = ["".join(s.text for s in line) for line in lines]
    assert all(len(p) == 30 for p in plain)
    assert plain[-1].rstrip() == "end" and plain[1].startswith(MARK)


def test_the_markdown_of_a_live_or_frozen_block_wraps_with_marks():
    theme = THEMES[0]
    text = f"```python\n{LONG}\n```\n"
    for strips in (render_lines(markdown(text, theme), 60, theme), render_segment(text, 60, theme)):
        rows = [s.text.rstrip() for s in strips if s.text.strip()]
        assert any(r.strip().startswith(MARK.strip()) for r in rows)
        joined = "".join(r.strip().removeprefix(MARK.strip()).strip() if n else r.strip()
                         for n, r in enumerate(rows))
        assert joined.replace(" ", "") == LONG.replace(" ", "")  # every character drawn, none cut
