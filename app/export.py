"""Export the session file beside itself, as Markdown or JSON."""

from __future__ import annotations

import os
from pathlib import Path

from rivulet.core.store.export import to_json, to_markdown
from rivulet.core.store.session import load_session


def export_session(path: Path, fmt: str) -> Path:
    """Write `path` (a complete session file: every change is fsynced) as `.md` or
    `.json` beside it, private like the session. Raises OSError or RivuletError."""
    session = load_session(path)
    out = path.with_suffix(f".{fmt}")
    text = to_markdown(session) if fmt == "md" else to_json(session)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return out

