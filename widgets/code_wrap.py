"""Code blocks that soft-wrap: a line longer than the block is continued on the next
row after a dim "↪ " mark, so nothing is cut at the right edge (issue 25), live and
committed alike. Only the screen wraps: /copy and the session keep the original lines.

One renderable (`WrappedCode`) draws Rich Markdown's code blocks, in the live tail and
in the frozen lines (widgets/frozen.py) that a committed answer is made of, so a block
keeps its rows and colours when it is committed.
"""

from __future__ import annotations

from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import CodeBlock, Heading, HorizontalRule
from rich.markdown import Markdown as RichMarkdown
from rich.padding import Padding
from rich.rule import Rule
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from .compat.rich import init_markdown, syntax_background
from .line_copy import CHROME, CHROME_META, CODE, WRAP
from .ordered_lists import NumberedItem

MARK = "↪ "  # starts a continued row: the line above did not end there
MARK_STYLE = Style(dim=True) + Style.from_meta({WRAP: True})  # (meta: a selection's copy leaves it out)
ROW_META = Style.from_meta({CODE: True, CHROME: False})  # code, inside a padding that is chrome


def row_starts(plain: str, width: int, continued: bool = False) -> list[int]:
    """Where each row but the first starts, for one line of code at `width` cells: rows after
    the first (all of them in a `continued` line, the rest of a line cut before it) leave
    room for the mark. A wide character is never split."""
    room = width - len(MARK) if continued else width
    if width <= len(MARK) or cell_len(plain) <= room:
        return []
    offsets: list[int] = []
    used = 0
    for i, char in enumerate(plain):
        cells = cell_len(char)
        if used + cells > room:
            offsets.append(i)
            room, used = width - len(MARK), 0
        used += cells
    return offsets


def wrap_line(line: Text, width: int, continued: bool = False) -> list[Text]:
    """One line of code as rows of at most `width` cells."""
    if width <= len(MARK):
        return [line]
    offsets = row_starts(line.plain, width, continued)
    if not offsets and not continued:
        return [line]
    rows = list(line.divide(offsets))
    # The mark is a span, not the row's style: the row keeps its own (WrappedCode sets it).
    first = [] if continued else [rows.pop(0)]
    return [*first, *(Text.assemble((MARK, MARK_STYLE)) + row for row in rows)]


class WrappedCode:
    """Highlighted code, each line soft-wrapped to the width it is drawn at (the first one
    marked from its first row when it is `continued`: the rest of a line cut before it)."""

    def __init__(self, code: Text, style: Style | None = None, continued: bool = False) -> None:
        self.code = code
        self.style = style or Style()
        self.continued = continued

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        new_line = Segment.line()
        for n, line in enumerate(self.code.split("\n", allow_blank=True)):
            for row in wrap_line(line, width, self.continued and n == 0):
                row.style = self.style + ROW_META  # the block's background, under the tokens' colours
                row.append(" " * (width - row.cell_len), CHROME_META)  # (not the code's: not copied)
                yield from row.render(console)
                yield new_line


def code_theme(dark: bool) -> str:
    """The Pygments theme of code blocks (widgets/frozen.py's Markdown styles use it too)."""
    return "monokai" if dark else "friendly"


def highlighted(code: str, lexer: str, theme: str) -> tuple[Text, Style]:
    """The code coloured as Rich Markdown colours it, and its background."""
    syntax = Syntax(code, lexer or "text", theme=theme)
    background = syntax_background(syntax)
    text = syntax.highlight(code)
    text.rstrip()
    return text, background


class WrappingCodeBlock(CodeBlock):
    """Rich Markdown's code block, wrapped with marks instead of at word boundaries."""

    continued = False  # its first line is the rest of a line cut before it (ContinuedMarkdown)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text, background = highlighted(str(self.text).rstrip(), self.lexer_name, self.theme)
        yield Padding(WrappedCode(text, background, self.continued), 1, style=background + CHROME_META)


class ContinuedCodeBlock(WrappingCodeBlock):
    """The fence that opens a ContinuedMarkdown's text: its first line is continued."""

    @classmethod
    def create(cls, markdown: RichMarkdown, token: Token) -> CodeBlock:
        block = super().create(markdown, token)
        if isinstance(block, WrappingCodeBlock):
            block.continued = token.map is not None and token.map[0] == 0
        return block


class LeftHeading(Heading):
    """Every heading starts where the text does (Rich centres an H1; issue 25 asked for
    the left, as the committed answer showed it when it was Textual's Markdown widget)."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(Heading.LEVEL_ALIGN, "left")


class SolidRule(HorizontalRule):
    """A thematic break as a solid line (Rich draws dashes), as the committed answer had it."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"), characters="─")
        yield Text()


# One Markdown parser for every render: Rich makes a new MarkdownIt per Markdown (its rules
# compiled again, linkify's patterns too), 1.6 of the 2.5 ms a short entry cost, paid for
# each old entry drawn while a flood of items scrolls by. Parsing keeps no state between calls.
_PARSER = MarkdownIt().enable("strikethrough").enable("table")


def parse(markup: str) -> list[Token]:
    """Markdown's tokens, as every render here parses them."""
    return _PARSER.parse(markup)


class WrappingRichMarkdown(RichMarkdown):
    """Rich's Markdown with wrapping code, aligned numbers, left headings, solid rules."""

    def __init__(self, markup: str, code_theme: str = "monokai", hyperlinks: bool = True) -> None:
        # What RichMarkdown.__init__ sets, with the shared parser's tokens.
        init_markdown(self, markup, _PARSER.parse(markup), code_theme, hyperlinks)

    elements = {**RichMarkdown.elements, "fence": WrappingCodeBlock, "code_block": WrappingCodeBlock,
                "list_item_open": NumberedItem,  # "1." as the committed answer had it
                "heading_open": LeftHeading, "hr": SolidRule}


class ContinuedMarkdown(WrappingRichMarkdown):
    """The rest of a code line cut at a row's start (widgets/open_block.py): its text is the
    fence's opener, then the code, whose first line is drawn as the rows that continue it."""

    elements = {**WrappingRichMarkdown.elements, "fence": ContinuedCodeBlock}
