"""Writing a file whose name the user gave (`rivulet export -o`), never through a link.

The target's directory may be the repository, which is as hostile as the model: a link
planted at the name would make a plain `open(name, "w")` write wherever it points (an
`~/.bashrc`, an `authorized_keys`). The text goes to a new private file beside the target
(`O_CREAT | O_EXCL | O_NOFOLLOW`: never an existing file, never a link), which is then
renamed over the name: a rename replaces a link, it does not follow it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_private(path: Path, text: str) -> None:
    """`text` (UTF-8) at `path`, readable by the user alone, replacing whatever is there
    (a link is replaced, not followed). Raises OSError; on failure nothing is left behind."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
