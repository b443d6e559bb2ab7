"""The editor's side of the workspace's files, when a front end has one (an ACP client that
offers `fs/read_text_file` and `fs/write_text_file`): a patch is planned on what the editor
holds (its unsaved buffers) and written through it (so its buffers and its undo see the
change). Without one, patches read and write the files themselves (core/tools/patch_apply.py).
Checkpoints are taken from the disk before the write either way, so `/undo` keeps working."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class EditorFiles(Protocol):
    async def read(self, path: Path) -> str | None:
        """The text the editor holds for `path` (None: the file does not exist). OSError if it cannot say."""
        ...

    async def write(self, path: Path, text: str) -> None:
        """Write `text` to `path` through the editor. OSError (one line) if it refuses or fails."""
        ...
