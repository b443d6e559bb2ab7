"""The apply_patch format (Codex's): parsing, incrementally while it streams.

    *** Begin Patch
    *** Add File: path            then "+line" lines
    *** Delete File: path
    *** Update File: path         optionally "*** Move to: new/path", then hunks:
    @@ optional anchor line       " context", "-removed", "+added", "*** End of File"
    *** End Patch

`PatchParser` takes the text in pieces (the model's input deltas) and handles every
complete line once, so the live diff costs the same per delta however long the patch
gets. The same parser, given the whole text and `finish()`ed, is the strict parser
whose result is applied (see `patch_apply.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class PatchError(ValueError):
    """The patch is malformed, or does not fit the files it changes."""


class OpKind(StrEnum):
    ADD = "add"
    DELETE = "delete"
    UPDATE = "update"


@dataclass
class Hunk:
    anchor: str | None = None  # the "@@ line" text: the hunk is searched for after it
    lines: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", text)
    at_eof: bool = False  # "*** End of File": the hunk must end the file

    @property
    def old(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "+"]

    @property
    def new(self) -> list[str]:
        return [text for tag, text in self.lines if tag != "-"]


@dataclass
class FileOp:
    kind: OpKind
    path: str
    move_to: str | None = None
    added: list[str] = field(default_factory=list)  # ADD: the file's lines
    hunks: list[Hunk] = field(default_factory=list)  # UPDATE

    def counts(self) -> tuple[int, int]:
        """(lines added, lines removed), for summaries."""
        if self.kind is OpKind.ADD:
            return len(self.added), 0
        plus = sum(1 for h in self.hunks for tag, _ in h.lines if tag == "+")
        minus = sum(1 for h in self.hunks for tag, _ in h.lines if tag == "-")
        return plus, minus


BEGIN, END = "*** Begin Patch", "*** End Patch"
_ADD, _DELETE, _UPDATE, _MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
_EOF = "*** End of File"


class PatchParser:
    """Feed text as it streams; `ops` is what has been parsed so far."""

    def __init__(self) -> None:
        self.ops: list[FileOp] = []
        self.begun = False
        self.ended = False
        self.errors: list[str] = []  # problems found so far (the live view shows them)
        self._partial = ""
        self._line_no = 0

    @property
    def pending_line(self) -> str:
        """The incomplete last line (shown live, not parsed yet)."""
        return self._partial

    def feed(self, text: str) -> None:
        if not text:
            return
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line.removesuffix("\r"))

    def finish(self) -> list[FileOp]:
        """The whole patch is in: parse the last line and check the structure."""
        if self._partial:
            self._line(self._partial.removesuffix("\r"))
            self._partial = ""
        if not self.begun:
            self._error(f"a patch must start with {BEGIN!r}")
        elif not self.ended:
            self._error(f"the patch does not end with {END!r}")
        for op in self.ops:
            if op.kind is OpKind.UPDATE and not op.hunks and op.move_to is None:
                self._error(f"'Update File: {op.path}' has no changes")
            for hunk in op.hunks:
                if not any(tag != " " for tag, _ in hunk.lines):
                    self._error(f"a hunk of {op.path} changes nothing")
        if not self.ops and not self.errors:
            self._error("the patch changes no file")
        if self.errors:
            raise PatchError("; ".join(self.errors))
        return self.ops

    # ---- one line at a time ----------------------------------------------------------

    def _error(self, message: str) -> None:
        if len(self.errors) < 20:
            where = f"line {self._line_no}: " if self._line_no else ""
            self.errors.append(where + message)

    def _line(self, line: str) -> None:
        self._line_no += 1
        if self.ended:
            if line.strip():
                self._error(f"text after {END!r}")
            return
        if not self.begun:
            if line.strip() == BEGIN:
                self.begun = True
            elif line.strip():
                self._error(f"a patch must start with {BEGIN!r}, not {line[:60]!r}")
            return
        stripped = line.strip()
        if stripped == END:
            self.ended = True
            return
        for prefix, kind in ((_ADD, OpKind.ADD), (_DELETE, OpKind.DELETE), (_UPDATE, OpKind.UPDATE)):
            if line.startswith(prefix):
                path = line[len(prefix):].strip()
                if not path:
                    self._error(f"{prefix.strip()} without a path")
                self.ops.append(FileOp(kind, path))
                return
        op = self.ops[-1] if self.ops else None
        if op is None:
            if stripped:
                self._error(f"expected a file header ('*** Add/Update/Delete File: ...'), got {line[:60]!r}")
            return
        if op.kind is OpKind.ADD:
            if line.startswith("+"):
                op.added.append(line[1:])
            elif stripped:
                self._error(f"a line of added file {op.path} must start with '+'")
            return
        if op.kind is OpKind.DELETE:
            if stripped:
                self._error(f"'Delete File: {op.path}' takes no lines")
            return
        self._update_line(op, line)

    def _update_line(self, op: FileOp, line: str) -> None:
        if line.startswith(_MOVE) and not op.hunks:
            op.move_to = line[len(_MOVE):].strip() or None
            return
        if line.startswith("@@"):
            anchor = line[2:].strip()
            op.hunks.append(Hunk(anchor or None))
            return
        if line.strip() == _EOF:
            if op.hunks:
                op.hunks[-1].at_eof = True
            return
        if not op.hunks:
            op.hunks.append(Hunk())  # the first hunk may come without "@@"
        hunk = op.hunks[-1]
        if hunk.at_eof:
            self._error(f"lines after '{_EOF}' in {op.path}")
            return
        if line == "":
            hunk.lines.append((" ", ""))  # an empty context line whose space was trimmed
        elif line[0] in " -+":
            hunk.lines.append((line[0], line[1:]))
        else:
            self._error(f"a hunk line of {op.path} must start with ' ', '-' or '+', got {line[:60]!r}")


def parse_patch(text: str) -> list[FileOp]:
    parser = PatchParser()
    parser.feed(text)
    return parser.finish()


class JsonStringField:
    """Pulls one string field's value out of a JSON object that arrives in pieces
    (the function-call fallback streams `{"input": "*** Begin Patch\\n..."}`), decoding
    escapes as they complete, so the patch parser can be fed while the model writes."""

    def __init__(self, name: str) -> None:
        self._key = f'"{name}"'
        self._buf = ""
        self._state = "seek"  # seek -> colon -> value -> done
        self._pos = 0

    def feed(self, text: str) -> str:
        """The value's newly decoded characters."""
        self._buf += text
        out: list[str] = []
        buf = self._buf
        i = self._pos
        while i < len(buf):
            if self._state == "seek":
                at = buf.find(self._key, i)
                if at < 0:
                    i = max(i, len(buf) - len(self._key))
                    break
                i = at + len(self._key)
                self._state = "colon"
            elif self._state == "colon":
                ch = buf[i]
                if ch == '"':
                    self._state = "value"
                elif ch not in " \t\r\n:":
                    self._state = "seek"  # the key was a value elsewhere, keep looking
                i += 1
            elif self._state == "value":
                ch = buf[i]
                if ch == '"':
                    self._state = "done"
                    i += 1
                    break
                if ch != "\\":
                    out.append(ch)
                    i += 1
                    continue
                if i + 1 >= len(buf):
                    break  # the escape is split across deltas: wait for the rest
                esc = buf[i + 1]
                if esc == "u":
                    if i + 6 > len(buf):
                        break
                    code = int(buf[i + 2:i + 6], 16)
                    if 0xD800 <= code < 0xDC00:  # a surrogate pair: needs the low half too
                        if i + 12 > len(buf):
                            break
                        low = int(buf[i + 8:i + 12], 16)
                        out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                        i += 12
                    else:
                        out.append(chr(code))
                        i += 6
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(esc, esc))
                i += 2
            else:
                break
        # Keep only what is still needed (bounded memory however long the value).
        self._buf = buf[i:]
        self._pos = 0
        return "".join(out)
