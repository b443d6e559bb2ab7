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
    if session.subagent_items:  # by the call that spawned each (issue 41)
        data["subagents"] = {cid: {"subagent": session.subagents.get(cid, ("", ""))[0],
                                   "name": session.subagents.get(cid, ("", ""))[1],
                                   "items": [{"item": item} for item in items]}
                             for cid, items in session.subagent_items.items()}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def to_markdown(session: Session) -> str:
    meta = session.meta
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.created))
    head = (f"# rivulet session {meta.id}\n\n- started: {when}\n- model: {meta.model}\n- server: {meta.base_url}\n"
            f"- directory: {meta.cwd}\n")
    names = {cid: name for cid, (_, name) in session.subagents.items()}
    return head + history_markdown(list(session.history), session.subagent_items, names)


def history_markdown(history: list[it.Item], subagents: dict[str, list[it.Item]] | None = None,
                     names: dict[str, str] | None = None) -> str:
    """The conversation as Markdown, sanitised: reasoning and tool output in full (the
    export, the pager's /transcript, and `--print` on quit). A subagent's items (by the
    call that spawned it) follow its call, quoted."""
    outputs = {cid: i for i in history if it.is_output(i) and (cid := it.call_id(i)) is not None}
    out = []
    for item in history:
        out.append(kind_of(item).markdown(item, None if it.is_output(item) else outputs.get(it.call_id(item) or "")))
        cid = it.call_id(item) if it.is_call(item) else None
        if subagents and cid in subagents:
            out.append(_nested(subagents[cid], (names or {}).get(cid) or cid or ""))
    # Markdown files get opened in terminals too: no control sequences in them either.
    return sanitize("".join(out))


def _nested(items: list[it.Item], name: str) -> str:
    """A subagent's conversation under its call: its own history, quoted."""
    body = history_markdown(items).strip("\n")
    quoted = "".join(f"> {line}".rstrip() + "\n" for line in body.splitlines())
    return f"\n#### Subagent {name!r}\n\n{quoted}"
