"""Canary for widgets/compat/rich.py: what it relies on in Rich's private API is there."""

from __future__ import annotations

from rich.markdown import Markdown
from rich.style import Style
from rich.syntax import Syntax

from rivulet.widgets.code_wrap import WrappingRichMarkdown
from rivulet.widgets.compat import rich as compat


def test_init_markdown_sets_what_richs_constructor_sets() -> None:
    assert set(vars(Markdown("x"))) == compat.MARKDOWN_ATTRIBUTES, "Rich's Markdown.__init__ changed"
    ours, richs = WrappingRichMarkdown("# a\n\n`b`", code_theme="friendly"), Markdown("# a\n\n`b`", code_theme="friendly")
    assert set(vars(ours)) == set(vars(richs))
    assert {k: v for k, v in vars(ours).items() if k != "parsed"} == {k: v for k, v in vars(richs).items() if k != "parsed"}
    assert [t.type for t in ours.parsed] == [t.type for t in richs.parsed]


def test_syntax_background_is_the_themes_background() -> None:
    background = compat.syntax_background(Syntax("x = 1", "python", theme="monokai"))
    assert isinstance(background, Style) and background.bgcolor is not None


def test_has_meta_tells_a_style_with_meta_from_one_without() -> None:
    assert compat.has_meta(Style.from_meta({"a": 1}))
    assert not compat.has_meta(Style(bold=True))
