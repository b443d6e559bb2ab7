"""Streamed Markdown, cut into blocks that are finished: a block is printed (rendered)
once, when it can no longer change, and never redrawn.

A block ends at a blank line outside a code fence, or at a fence's closing line. A
paragraph that goes on without a blank line is let out at a line's end once it is long
(a reader should not wait for a whole essay); the rest comes with the item's end."""

from __future__ import annotations

LONG_BLOCK = 1_200  # characters: past this, a block ends at the next line end


class BlockCutter:
    def __init__(self) -> None:
        self._pending = ""  # text of the open block
        self._fence: str | None = None  # the open code fence's marker (``` or ~~~), if any
        self._line = ""  # the current line, not yet ended

    def feed(self, text: str) -> list[str]:
        """The blocks `text` finished, in order."""
        out: list[str] = []
        self._line += text
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            done = self._take_line(line)
            if done is not None:
                out.append(done)
        return out

    def _take_line(self, line: str) -> str | None:
        stripped = line.strip()
        self._pending += line + "\n"
        if self._fence is not None:
            if stripped.startswith(self._fence) and stripped.strip(self._fence[0]) == "":
                self._fence = None
                return self._cut()
            return None
        if stripped.startswith(("```", "~~~")):
            before = self._pending[: -len(line) - 1]
            self._fence = stripped[:3]
            if before.strip():  # the text above the fence is a block of its own
                self._pending = line + "\n"
                return before
            return None
        if not stripped and self._pending.strip():
            return self._cut()
        if len(self._pending) >= LONG_BLOCK and not _in_list(self._pending):
            return self._cut()
        return None

    def _cut(self) -> str:
        block, self._pending = self._pending, ""
        return block

    def finish(self) -> str:
        """Everything not yet let out (the item ended)."""
        rest = self._pending + self._line
        self._pending, self._line, self._fence = "", "", None
        return rest


def _in_list(text: str) -> bool:
    last = text.rstrip("\n").rsplit("\n", 1)[-1].lstrip()
    return last[:2] in ("- ", "* ", "+ ") or last[:1].isdigit()
