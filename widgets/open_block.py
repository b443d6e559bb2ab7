"""The open block of a live Markdown tail, drawn on each frame at a cost that a long line
in it does not grow (issue 36).

The tail (widgets/frozen.py's MarkdownTail) draws its open block again on every frame.
Blocks are short, as the Segmenter cuts them at line starts, but one line can be megabytes
(a base64 blob, minified JSON, a log line): drawn whole on every frame, each frame cost
more than the one before, quadratic in the line (10 MB on one line: 32 CPU s).

So a long open block is cut too, at the start of one of its rows. The rows above the cut
are final, kept, and a frame draws only the rest. A cut changes nothing on the screen:

* it is made at a row start of the current width (a resize draws the block whole again
  and cuts it anew), and only where the part below, drawn alone, gives exactly the whole's
  rows below the cut, cell for cell, and the part above gives the rows above: drawn alone
  and compared too, unless it holds nothing Markdown reads (then they are its line wrapped);
* rows of a wrapped paragraph above a row's start do not change as text is added (Rich
  wraps greedily); the rest of a cut code line is drawn as its continued rows, marked
  (code_wrap.ContinuedMarkdown);
* Markdown that opened above a cut could close below it (a code span, emphasis, a link,
  or a setext underline or a table's delimiter row under the line): when text that could
  close it comes, the block is drawn whole again, and no longer cut;
* where no cut holds (a long line in a list item, a quote or a table row; highlighted code
  whose colours would change at a cut), the block is drawn whole, and once it is long,
  only when it has grown by half since it was last drawn: its last rows lag behind the
  text, and the cost stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from markdown_it.token import Token
from rich.style import Style
from textual.strip import Strip

from .code_wrap import parse, row_starts

CUT_AT = 8_000  # characters drawn again on each frame before a cut is tried (a block was up to ~6,000)
LAG_FROM = 2 * CUT_AT  # an uncut rest longer than this is drawn when it grew by half, not on each frame
# A line under a paragraph that could make it a setext heading or a table's header row.
_UNDERLINE = re.compile(r"\n {0,3}[-=|:]")
_DEFINITION = re.compile(r"^ {0,3}\[(?:[^\[\]\\]|\\.)+\]:", re.M)  # a link reference definition (it applies above)
_RUN = re.compile(r"([*_~])\1*")  # emphasis and strikethrough delimiters
_ANGLE = re.compile(r"<(?!\s)")  # an autolink or inline HTML may start here
_PLAIN = Style()
# What could make a paragraph's text other than itself: a code span, emphasis, strikethrough,
# autolink or HTML, an entity, an escape, a line break, a tab; "_" but inside a word.
_MARKUP = re.compile(r"[`*~<&\\\n\t]|(?<![^\W_])_|_(?![^\W_])")


@dataclass(frozen=True)
class Block:
    """One block of a tail, rendered on its own, and how it joins the block before it."""

    lines: list[Strip]
    starts_with_blank: bool  # a list, table or quote: Rich's own blank line comes first
    ends_with_rule: bool  # a horizontal rule: Rich puts no blank line after it


class Draw(Protocol):
    """What a block is drawn with: Markdown at one width, in one theme (widgets/frozen.py)."""

    @property
    def width(self) -> int: ...

    @property
    def key(self) -> Hashable: ...

    def block(self, text: str) -> Block: ...

    def code(self, opener: str, code: str, continued: bool) -> list[Strip]:
        """`code` as the rows it has inside the fence `opener` opened, the padding row above
        left out (the code goes on from above); `continued`: its first line is the rest of
        a line cut before it."""


@dataclass(frozen=True)
class Rest:
    """How the text below the last cut is drawn."""

    fence: str | None = None  # the opener of the code fence it goes on in (None: a paragraph's rest)
    continued: bool = False  # it starts inside a code line


class OpenBlock:
    """A block of a tail: its text, and, while it is the open one, its rows (those above the
    last cut, `done`, and those below it, `rows`) for one width and theme."""

    def __init__(self) -> None:
        self._pieces: list[str] = []  # the text, as it came (joined when asked for)
        self.head = ""  # its first characters (does it start a list item?)
        self.blank = True  # nothing but whitespace so far
        self.starts_with_blank = self.ends_with_rule = False  # as the whole block was last drawn
        self._key: Hashable = None
        self._restart(cuts=True)

    def _restart(self, cuts: bool) -> None:
        """Drawn whole again from now on; `cuts`: and cut again when it is long."""
        self.done: list[Strip] = []  # rows above the last cut: final
        self.rows: list[Strip] = []  # rows below it, as last drawn
        self._rest = list(self._pieces)  # the text below the last cut
        self._rest_size = sum(map(len, self._rest))
        self._how: Rest | None = None  # None: the rest is the whole block
        self._cuts = cuts
        self._risks = Risks()
        self._drawn = -1  # the rest's size when it was last drawn
        self._try_at = CUT_AT  # the rest's size at which a cut is tried next

    @property
    def text(self) -> str:
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def add(self, text: str) -> None:
        self._pieces.append(text)
        self._rest.append(text)
        self._rest_size += len(text)
        if len(self.head) < 32:
            self.head = (self.head + text)[:32]
        self.blank = self.blank and not text.strip()

    def release(self) -> None:
        """Its rows were taken (it is no longer the open block): keep only its text."""
        self._key = None
        self._restart(cuts=True)

    def render(self, draw: Draw, fence: str | None = None, final: bool = False) -> list[Strip]:
        """The rows below `done`, now. `fence`: the opener of the code fence the text ends in.
        `final`: the block is finished (drawn up to its last character, and not cut)."""
        if draw.key != self._key:
            self._key = draw.key
            self._restart(cuts=True)
        size = self._rest_size
        if (size == self._drawn and not final) or (not final and LAG_FROM < size < self._drawn * 3 // 2):
            return self.rows
        rest = self._joined_rest()
        if self.done and self._how is not None and self._how.fence is None and self._risks.closed(rest, final):
            self._restart(cuts=False)  # it may close Markdown opened above a cut: drawn whole
            rest, size = self._joined_rest(), self._rest_size
        elif size == self._drawn:
            return self.rows  # (finished, and nothing came since it was drawn)
        rows = self._draw(draw, self._how, rest)
        self._drawn = size
        if self._cuts and not final and size >= self._try_at:
            rows = self._cut(draw, rest, rows, fence)
        self.rows = rows
        return rows

    def _joined_rest(self) -> str:
        if len(self._rest) != 1:
            self._rest = ["".join(self._rest)]
        return self._rest[0]

    def _draw(self, draw: Draw, how: Rest | None, text: str, whole: bool = True) -> list[Strip]:
        if how is not None and how.fence is not None:
            return draw.code(how.fence, text, how.continued)
        block = draw.block(text)
        if how is None and whole:
            self.starts_with_blank, self.ends_with_rule = block.starts_with_blank, block.ends_with_rule
        return block.lines

    def _cut(self, draw: Draw, rest: str, rows: list[Strip], fence: str | None) -> list[Strip]:
        """Cut `rest` at one of its last rows' starts, where drawing the two parts gives its
        `rows`: the rows above join `done`, and the rows below are returned."""
        if self._how is None and fence is None and _DEFINITION.search(rest):
            self._cuts = False  # a reference definition applies to links below it, and a cut loses it
            return rows
        for at in self._places(draw.width, rest, rows, fence):
            head, tail = rest[:at], rest[at:]
            how = Rest(fence, not head.endswith("\n")) if fence is not None else Rest()
            below = self._draw(draw, how, tail)
            above = len(rows) - len(below)
            if above <= 0 or not same(below, rows[above:]):
                continue
            if not self._inert(head, rest, fence):  # drawn alone, it might not be the rows above
                alone = self._draw(draw, self._how, head, whole=False)
                if fence is not None:
                    alone = alone[:-1]  # the code block's padding row below: the code goes on
                if len(alone) != above or not same(alone, rows[:above]):
                    continue
            self.done.extend(rows[:above])
            if fence is None:
                self._risks.settle(head)
            self._how, self._rest, self._rest_size = how, [tail], len(tail)
            self._drawn, self._try_at = len(tail), CUT_AT
            return rows[above:]
        # No cut holds here: tried again once it grew (by half, when that is more), so that
        # the tries cost a bounded share of the drawing.
        self._try_at = self._rest_size + max(CUT_AT // 2, self._rest_size // 2)
        return rows

    def _inert(self, head: str, rest: str, fence: str | None) -> bool:
        """Are the rows above the cut those of `head` drawn alone, without drawing it? So they
        are where nothing in it is Markdown: they are its line wrapped from its start (a row's
        start, or the block's), which text added below does not change. That is plain code
        going on from a cut, or a paragraph's one line with nothing that could open or close
        (nor, at the block's start, begin anything but a paragraph)."""
        if fence is not None:
            return self._how is not None and self._how.fence == fence and fence.strip(" `~\n") in ("", "text")
        if self._how is None and not _continues_paragraph(head):
            return False
        return "\n" not in head and not _MARKUP.search(head) and ("[" not in head or "](" not in rest)

    def _places(self, width: int, rest: str, rows: list[Strip], fence: str | None) -> list[int]:
        """Where the last rows of the rest's last line start (offsets in the rest), latest
        first: each is a cut that may hold."""
        start = rest.rfind("\n") + 1
        line = rest[start:]
        if fence is not None:
            continued = start == 0 and self._how is not None and self._how.continued
            # inside the code block's padding of one column on each side
            offsets = row_starts(line.rstrip(), width - 2, continued)[-2:][::-1]
            places = [start + at for at in offsets if _continues_code(line[at:], fence)]
        else:
            places = [start + at for at in row_starts_in(line, rows[-3:]) if _continues_paragraph(line[at:])]
        return [at for at in places if at > 0 and rest[at - 1] != "\\" and "&" not in rest[max(0, at - 32):at]]


def row_starts_in(line: str, rows: list[Strip]) -> list[int]:
    """Where `rows` (the last rows of a paragraph) start in `line`, the last one first. A row
    that starts with plain text (not code, emphasis or a link: Markdown left it as it is) is
    found by that text, in the line before the row after it. A cut at a wrong place is
    refused when it is tried."""
    found: list[int] = []
    end = len(line)
    for row in reversed(rows):
        segments = list(row)
        lead = segments[0].text if segments and not segments[0].style else ""
        if len(segments) == 1:
            lead = lead.rstrip()
        at = line.rfind(lead, 0, end) if lead.strip() else -1
        if at > 0:
            found.append(at)
            end = at
    return found


def _continues_paragraph(tail: str) -> bool:
    """Does `tail`, drawn alone, begin a paragraph whatever follows it (not a heading, a
    list item, a quote, a fence, HTML, a rule, a table or a reference)?"""
    first = tail[:1]
    if not first or first in " \t>`~<[|_":
        return False
    if first.isdigit():  # an ordered list's number is up to 9 digits, then "." or ")"
        after = tail[len(tail) - len(tail.lstrip("0123456789")):][:1]
        return after not in ("", ".", ")")
    if first in "#-+*":
        return tail[1:2] not in ("", " ", "\t", "#", "-", "*", "_")
    return True


def _continues_code(tail: str, fence: str) -> bool:
    """Does `tail`, the rest of a code line, stay code on a line of its own (it does not
    close the fence, or lose the spaces it starts with as the fence's indentation)?"""
    first = tail[:1]
    return bool(first) and not first.isspace() and first != fence.lstrip()[:1]


def same(rows: list[Strip], others: list[Strip]) -> bool:
    """The same cells (text and style), however their segments are split (and no style is
    the empty style)."""
    return all(a == b or _cells(a) == _cells(b) for a, b in zip(rows, others, strict=True))


def _cells(row: Strip) -> list[tuple[str, Style]]:
    runs: list[tuple[str, Style]] = []
    for segment in row:
        style = segment.style or _PLAIN
        if runs and runs[-1][1] == style:
            runs[-1] = (runs[-1][0] + segment.text, style)
        else:
            runs.append((segment.text, style))
    return runs


class Risks:
    """Markdown opened above the cuts that text below them could close: the kinds of
    opening ("`", "*", "_", "~", "[", "<") seen above. Judged on the safe side: a false
    alarm only costs the block its cuts."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.last = " "  # the character just above the last cut

    def settle(self, text: str) -> None:
        """`text` is now above a cut. What it opened and closed itself is no risk: only a
        kind that could open and that Markdown left as it is (unmatched). (A bracket is a
        risk only where "](" comes below it: it is not looked at closer.)"""
        opening = self._openers(text)
        if opening - {"["}:
            left = {kind for kind in "`*_~<" if any(kind in token.content for token in _text_tokens(text))}
            opening &= left | {"["}
        self.kinds |= opening
        self.last = text[-1:] or self.last

    def _openers(self, text: str) -> set[str]:
        kinds = {kind for kind in "`[" if kind in text}
        if _ANGLE.search(text):
            kinds.add("<")
        for run in _RUN.finditer(text):
            after = text[run.end():run.end() + 1]  # (none: not known yet, so it may open)
            before = text[run.start() - 1] if run.start() else self.last
            if not after.isspace() and not (run[1] == "_" and before.isalnum()):
                kinds.add(run[1])
        return kinds

    def closed(self, rest: str, final: bool) -> bool:
        """Could `rest`, the text below the cuts, close what opened above them (`final`:
        nothing follows it)?"""
        if _UNDERLINE.search(rest):
            return True
        text = self.last + rest
        if ("`" in self.kinds and "`" in rest) or ("<" in self.kinds and ">" in rest) \
                or ("[" in self.kinds and ("](" in text or "]:" in text)):
            return True
        for run in _RUN.finditer(text):
            if run[1] not in self.kinds or run.end() == 1:
                continue
            before = text[run.start() - 1] if run.start() else "x"  # (the run goes on above: may close)
            after = text[run.end():run.end() + 1]
            if before.isspace() or (run[1] == "_" and (after.isalnum() or (not after and not final))):
                continue  # cannot close (or, at the end, not known yet: it is looked at again)
            return True
        return False


def _text_tokens(markup: str) -> list[Token]:
    """The inline text tokens of `markup`: what Markdown shows as it is."""
    return [token for block in parse(markup) for token in block.children or () if token.type == "text"]
