"""Export the session file beside itself, as Markdown or JSON."""

from __future__ import annotations

from pathlib import Path

from rivulet.core.store.export import to_json, to_markdown
from rivulet.core.store.session import load_session
from rivulet.core.store.write_file import write_private


def export_session(path: Path, fmt: str) -> Path:
    """Write `path` (a complete session file: every change is fsynced) as `.md` or
    `.json` beside it, private like the session. Raises OSError or RivuletError."""
    session = load_session(path)
    out = path.with_suffix(f".{fmt}")
    text = to_markdown(session) if fmt == "md" else to_json(session)
    write_private(out, text)  # a link at the name is replaced, never followed
    return out

