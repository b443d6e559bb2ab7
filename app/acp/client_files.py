"""The editor's files, when the client offers `fs/read_text_file` and `fs/write_text_file`:
a patch is planned on its buffers (unsaved edits included) and written through it, so the
editor shows the change and its undo takes it back (core/tools/editor_files.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp.interfaces import Client


class ClientFiles:
    def __init__(self, client: Client, session_id: str) -> None:
        self.client, self.session_id = client, session_id

    async def read(self, path: Path) -> str | None:
        from acp import RequestError

        if not path.is_file():  # (a file the editor only has as a new buffer is not the workspace's yet)
            return None
        try:
            return (await self.client.read_text_file(session_id=self.session_id, path=str(path))).content
        except (RequestError, ConnectionError) as exc:
            raise OSError(f"the editor could not read {path.name}: {exc}") from None

    async def write(self, path: Path, text: str) -> None:
        from acp import RequestError

        try:
            await self.client.write_text_file(session_id=self.session_id, path=str(path), content=text)
        except (RequestError, ConnectionError) as exc:
            raise OSError(f"{path.name}: {exc}") from None


def offers_files(capabilities: object) -> bool:
    """Whether the client's capabilities (initialize's) offer reading and writing files."""
    from acp.schema import ClientCapabilities

    fs = capabilities.fs if isinstance(capabilities, ClientCapabilities) else None
    return fs is not None and bool(fs.read_text_file) and bool(fs.write_text_file)
