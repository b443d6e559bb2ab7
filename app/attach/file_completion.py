"""The `@` completion provider: workspace files, as git sees them, ranked fuzzily.

It answers while the cursor is in an `@partial` token (an `@` at the start of a line
or after a space, then no space up to the cursor), and offers the workspace's files
(`list_files`: tracked and untracked, never what .gitignore hides) best first by
`rank`. Picking one inserts `@path ` (quoted when the path has a space), and typing
goes on; the file is attached when the message is sent (see attach_refs). A token
that already is a whole path gets no popup, so Enter after `@notes.txt` sends.

The file list is read at most every few seconds: `git ls-files` on every keystroke
would make typing lag in a large repository.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rivulet.core.tools.workspace_files import list_files, rank

if TYPE_CHECKING:
    from rivulet.widgets.completion import Trigger

REFRESH = 5.0  # seconds a file list is reused
MAX_ENTRIES = 30


@dataclass(frozen=True)
class FileMatch:
    start: tuple[int, int]  # the span a pick replaces: the "@" ...
    end: tuple[int, int]  # ... to the end of the token
    query: str
    paths: list[str]


def token_at(text: str, cursor: tuple[int, int]) -> tuple[int, int, str] | None:
    """(start column, end column, query) of the `@partial` token under the cursor on
    its line, or None."""
    row, col = cursor
    lines = text.split("\n")
    if not 0 <= row < len(lines):
        return None
    line = lines[row]
    col = min(col, len(line))
    before = line[:col]
    at = before.rfind("@")
    if at < 0 or (at > 0 and not line[at - 1].isspace()):
        return None
    query = before[at + 1:]
    if any(ch.isspace() for ch in query) or query.startswith(("@", '"')):
        return None  # past the token, an `@@` escape, or a quoted token (typed by hand)
    end = col
    while end < len(line) and not line[end].isspace():
        end += 1
    return at, end, query


def insertion(path: str) -> str:
    return f'@"{path}" ' if any(ch.isspace() for ch in path) else f"@{path} "


class FileCompletion:
    """`find(text, cursor)`: the files for the `@` token under the cursor, or None."""

    def __init__(self, workspace: Path, lister: Callable[[Path], list[str]] = list_files,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.workspace = workspace
        self._lister = lister
        self._clock = clock
        self._files: list[str] = []
        self._read_at: float | None = None

    def files(self) -> list[str]:
        now = self._clock()
        if self._read_at is None or now - self._read_at > REFRESH:
            try:
                self._files = self._lister(self.workspace)
            except OSError:
                self._files = []
            self._read_at = now
        return self._files

    def matches(self, text: str, cursor: tuple[int, int]) -> FileMatch | None:
        found = token_at(text, cursor)
        if found is None:
            return None
        start, end, query = found
        files = self.files()
        if query in files:
            return None  # a whole path typed (or picked): Enter sends, it does not pick again
        paths = rank(query, files, limit=MAX_ENTRIES)
        if not paths:
            return None
        return FileMatch((cursor[0], start), (cursor[0], end), query, paths)

    def find(self, text: str, cursor: tuple[int, int]) -> Trigger | None:
        """The completion popup's provider interface."""
        from rivulet.widgets.completion import Completion, Trigger

        found = self.matches(text, cursor)
        if found is None:
            return None
        entries = [Completion(insertion(path), path, _kind(self.workspace / path)) for path in found.paths]
        return Trigger(found.start, found.end, found.query, entries)


def _kind(path: Path) -> str:
    """The popup's hint beside a path: an image, or the file's size."""
    from rivulet.app.attach.refs import size_text

    try:  # O_NONBLOCK and a regular file only: a FIFO named in the repository must not hang the popup
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return ""
            size, head = info.st_size, os.read(fd, 16)
        finally:
            os.close(fd)
    except OSError:
        return ""
    from rivulet.core.turn.attachments import image_mime

    return f"image · {size_text(size)}" if image_mime(head) else size_text(size)
