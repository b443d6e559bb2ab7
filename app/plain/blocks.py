"""Streamed Markdown, cut into blocks that are finished: a block is printed (rendered)
once, when it can no longer change, and never redrawn.

A block ends at a blank line outside a code fence, or at a fence's closing line. A
paragraph that goes on without a blank line is let out at a line's end once it is long
(a reader should not wait for a whole essay); the rest comes with the item's end.

Text is kept in the pieces it came in and joined once, when a line or a block ends: a
line of megabytes fed a delta at a time (issue 36) is never copied or searched again
with each delta, so a delta costs what it holds."""

from __future__ import annotations

LONG_BLOCK = 1_200  # characters: past this, a block ends at the next line end


class BlockCutter:
    def __init__(self) -> None:
        self._pending: list[str] = []  # lines of the open block, each with its newline
        self._size = 0  # characters in them
        self._has_text = False  # one of them is not blank
        self._fence: str | None = None  # the open code fence's marker (``` or ~~~), if any
        self._line: list[str] = []  # the current line, not yet ended

    def feed(self, text: str) -> list[str]:
        """The blocks `text` finished, in order."""
        if "\n" not in text:
            if text:
                self._line.append(text)
            return []
        *ended, rest = text.split("\n")
        ended[0] = "".join([*self._line, ended[0]])
        self._line = [rest] if rest else []
        out: list[str] = []
        for line in ended:
            done = self._take_line(line)
            if done is not None:
                out.append(done)
        return out

    def _take_line(self, line: str) -> str | None:
        stripped = line.strip()
        self._pending.append(line + "\n")
        self._size += len(line) + 1
        if self._fence is not None:
            if stripped.startswith(self._fence) and stripped.strip(self._fence[0]) == "":
                self._fence = None
                return self._cut()
            return None
        if stripped.startswith(("```", "~~~")):
            before = self._pending[:-1]
            self._fence = stripped[:3]
            if self._has_text:  # the text above the fence is a block of its own
                self._pending, self._size, self._has_text = [line + "\n"], len(line) + 1, True
                return "".join(before)
            self._has_text = True
            return None
        if not stripped and self._has_text:
            return self._cut()
        self._has_text = self._has_text or bool(stripped)
        if self._size >= LONG_BLOCK and not _in_list(line):
            return self._cut()
        return None

    def _cut(self) -> str:
        block = "".join(self._pending)
        self._pending, self._size, self._has_text = [], 0, False
        return block

    def finish(self) -> str:
        """Everything not yet let out (the item ended)."""
        rest = "".join([*self._pending, *self._line])
        self._pending, self._size, self._has_text, self._line, self._fence = [], 0, False, [], None
        return rest


def _in_list(line: str) -> bool:
    """Is `line` (the open block's last) a list item's?"""
    last = line.lstrip()
    return last[:2] in ("- ", "* ", "+ ") or last[:1].isdigit()
