"""Split a streaming Markdown text into segments that render the same on their own.

Re-rendering a growing message costs time in proportion to its length (Textual's
`Markdown.append` re-joins and re-splits the whole source, and every block is a
widget). The live message pane therefore streams into a *segment* and starts a new
one once the segment is big enough and the text reaches a place where a cut does not
change the rendering:

* a soft cut: at the start of an unindented line that follows a blank line, outside a
  code fence (a new paragraph, heading, list item, fence ...);
* a hard cut, only when no soft cut came for a long while: at any unindented line
  start outside a fence (a huge paragraph becomes two), or inside a huge code fence,
  which is closed at the cut and reopened with the same opener in the next segment.

This is plain text logic (no Textual), fed incrementally: the cost of `feed` is
proportional to the text fed, never to the text seen before. It cuts at line starts only:
a long line is cut into rows where it is drawn (widgets/open_block.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Segments of a committed message kept as Markdown widgets (the newest); older ones
# are frozen into lines. Two cover more than a screen. (The live pane renders all of
# its text as lines: see widgets/live.py.)
LIVE_SEGMENTS = 2

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass(slots=True)
class _Fence:
    char: str
    length: int
    opener: str  # the opener line, newline included, to reopen the fence after a cut


class Segmenter:
    # The live pane renders its open segment again on every frame: small segments keep a
    # frame cheap. A committed message is cut the same way, so the segments the live pane
    # froze are re-used (render cache) and look the same once committed.
    def __init__(self, soft_limit: int = 1_500, hard_limit: int = 6_000) -> None:
        self.soft_limit = soft_limit
        self.hard_limit = hard_limit
        self.size = 0  # characters in the open segment
        self.segments = 1  # segments started so far (the first one is open from the start)
        self._line: list[str] = []  # the incomplete last line, in the pieces it came in
        self._prev_blank = False
        self._fence: _Fence | None = None

    def feed(self, text: str) -> list[str]:
        """Split `text` (the next part of the message) into pieces: the first goes
        on the open segment, each further piece starts a new segment."""
        pieces: list[str] = []
        current: list[str] = []
        for line in text.splitlines(keepends=True):
            if not self._line and line[0] not in " \t\n":
                cut = self._cut()
                if cut is not None:
                    close, reopen = cut
                    if close:
                        current.append(close)
                    pieces.append("".join(current))
                    current = [reopen] if reopen else []
                    self.size = len(reopen)
                    self.segments += 1
            current.append(line)
            self.size += len(line)
            if line.endswith("\n"):
                # Joined once, at its end: a line of megabytes fed a piece at a time is not
                # copied again with each piece.
                self._end_line("".join([*self._line, line]))
                self._line = []
            else:
                self._line.append(line)
        pieces.append("".join(current))
        return pieces

    @property
    def open_fence(self) -> str | None:
        """The opener line of the code fence the text is inside, if it is in one."""
        return self._fence.opener if self._fence is not None else None

    def _cut(self) -> tuple[str, str] | None:
        """At a line start: (text closing the open segment, text opening the next),
        or None to keep going in the same segment."""
        if self._fence is None:
            if self.size >= self.soft_limit and self._prev_blank:
                return "", ""
            if self.size >= self.hard_limit:
                return "", ""
            return None
        if self.size >= self.hard_limit:
            fence = self._fence
            return fence.char * fence.length + "\n", fence.opener
        return None

    def _end_line(self, line: str) -> None:
        body = line.rstrip("\r\n")
        self._prev_blank = not body.strip()
        match = _FENCE.match(body)
        if match is None:
            return
        marks, rest = match.groups()
        if self._fence is None:
            if marks[0] == "`" and "`" in rest:
                return  # not a fence: an inline code span
            self._fence = _Fence(marks[0], len(marks), body + "\n")
        elif marks[0] == self._fence.char and len(marks) >= self._fence.length and not rest.strip():
            self._fence = None


def split_segments(text: str, **limits: int) -> list[str]:
    """The segments a whole text streams into (the same cuts as feeding it piecewise)."""
    return [piece for piece in Segmenter(**limits).feed(text) if piece]
