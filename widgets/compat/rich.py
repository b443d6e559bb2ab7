"""Rich's private API, every use of it in rivulet (tested against Rich 13-15).

Canary: tests/widgets/test_compat_rich.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (types only: line_copy.py, imported at start, needs neither parser)
    from markdown_it.token import Token
    from rich.markdown import Markdown
    from rich.style import Style
    from rich.syntax import Syntax

# What `Markdown.__init__` sets (Rich 15): init_markdown sets the same, and the canary
# fails if a Rich release adds or drops one.
MARKDOWN_ATTRIBUTES = frozenset({"markup", "parsed", "code_theme", "inline_code_theme", "justify", "style",
                                 "hyperlinks", "inline_code_lexer"})


def syntax_background(syntax: Syntax) -> Style:
    """The theme's background style, as Rich Markdown's code blocks use it (`Syntax._get_base_style`)."""
    return syntax._get_base_style()


def has_meta(style: Style) -> bool:
    """Whether `style` carries meta, without decoding it (`Style._meta`, the pickled bytes)."""
    return bool(style._meta)


def init_markdown(markdown: Markdown, markup: str, parsed: list[Token], code_theme: str, hyperlinks: bool) -> None:
    """Set what `Markdown.__init__` would, with tokens parsed elsewhere (Rich has no way to
    pass a parser or tokens in: it builds a new MarkdownIt for each Markdown)."""
    markdown.markup = markup
    markdown.parsed = parsed
    markdown.code_theme = markdown.inline_code_theme = code_theme
    markdown.justify = None
    markdown.style = "none"
    markdown.hyperlinks = hyperlinks
    markdown.inline_code_lexer = None
