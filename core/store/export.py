"""A session as Markdown (to read or share) or as JSON (to process)."""

from __future__ import annotations

import json
import time
from typing import Any

from rivulet.core import items as it
from rivulet.core.kinds import kind_of
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import Session


def to_json(session: Session) -> str:
    data: dict[str, Any] = {
        "session": session.meta.to_json(),
        "turns": [{"turn_id": t.turn_id, "prompt": t.prompt, "started": t.started, "ended": t.ended,
                   "usage": t.usage} for t in session.turns],
        "items": [{"seq": e.seq, "time": e.time, "key": e.key, "item": e.item} for e in session.history.entries],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_markdown(session: Session) -> str:
    meta = session.meta
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.created))
    head = (f"# rivulet session {meta.id}\n\n- started: {when}\n- model: {meta.model}\n- server: {meta.base_url}\n"
            f"- directory: {meta.cwd}\n")
    return head + history_markdown(list(session.history))


def history_markdown(history: list[it.Item]) -> str:
    """The conversation as Markdown, sanitised: reasoning and tool output in full (the
    export, the pager's /transcript, and `--print` on quit)."""
    outputs = {cid: i for i in history if it.is_output(i) and (cid := it.call_id(i)) is not None}
    out = [kind_of(item).markdown(item, None if it.is_output(item) else outputs.get(it.call_id(item) or ""))
           for item in history]
    # Markdown files get opened in terminals too: no control sequences in them either.
    return sanitize("".join(out))
