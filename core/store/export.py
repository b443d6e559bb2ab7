"""A session as Markdown (to read or share) or as JSON (to process)."""

from __future__ import annotations

import json
import time
from typing import Any

from rivulet.core import items as it
from rivulet.core.hosted_items import HOSTED_TYPES, citation_parts, citations, hosted_view
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import Session
from rivulet.core.turn.attachments import describe_content, placeholder
from rivulet.core.turn.compaction import SUMMARY_CLOSE, SUMMARY_OPEN


def to_json(session: Session) -> str:
    data: dict[str, Any] = {
        "session": session.meta.to_json(),
        "turns": [{"turn_id": t.turn_id, "prompt": t.prompt, "started": t.started, "ended": t.ended,
                   "usage": t.usage} for t in session.turns],
        "items": [{"seq": e.seq, "time": e.time, "key": e.key, "item": e.item} for e in session.history.entries],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}\n"


def _user_content(item: it.Item) -> str:
    """The prompt, then each attachment: a file's placeholder line and its text fenced,
    an image as a placeholder line (never its base64)."""
    out = []
    for piece in describe_content(item):
        if piece.kind == "text":
            out.append(piece.text.strip() + "\n")
        elif piece.kind == "file":
            out.append(f"\n*{placeholder(piece)}*\n\n" + (_fence(piece.text) if piece.text else ""))
        else:
            out.append(f"\n*{placeholder(piece)}*\n")
    return "".join(out)


def to_markdown(session: Session) -> str:
    meta = session.meta
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.created))
    head = (f"# rivulet session {meta.id}\n\n- started: {when}\n- model: {meta.model}\n- server: {meta.base_url}\n"
            f"- directory: {meta.cwd}\n")
    return head + history_markdown(list(session.history))


def history_markdown(history: list[it.Item]) -> str:
    """The conversation as Markdown, sanitised: reasoning and tool output in full (the
    export, the pager's /transcript, and `--print` on quit)."""
    out: list[str] = []
    outputs = {it.call_id(i): i for i in history if it.is_output(i)}
    for item in history:
        kind = item.get("type")
        if kind == "message":
            text = it.message_text(item) or ""
            if item.get("role") == "user" and text.startswith("<turn_aborted>"):
                out.append("\n*(the turn was interrupted)*\n")
            elif item.get("role") == "user" and text.startswith(SUMMARY_OPEN):
                summary = text[len(SUMMARY_OPEN):].removesuffix(SUMMARY_CLOSE)
                out.append("\n## Summary of the earlier conversation (compacted)\n\n" + summary.strip() + "\n")
            elif item.get("role") == "user":
                out.append("\n## User\n\n" + _user_content(item))
            else:
                out.append("\n## Assistant\n\n" + text.strip() + "\n")
                refs = citations(item)
                if refs:  # the sources (web pages and files), numbered as the chat shows them
                    out.append("\nSources:\n\n" + "".join(f"{r.number}. [{r.title}]({r.link})\n" if r.link else
                                                             f"{r.number}. {r.title} ({r.url})\n" if r.url else
                                                             f"{r.number}. {' — '.join(citation_parts(r))}\n"
                                                             for r in refs))
        elif kind == "reasoning":
            summary = "\n\n".join(str(p.get("text", "")) for p in item.get("summary") or [] if isinstance(p, dict))
            if not summary.strip():  # a server that sends only raw reasoning (llama.cpp, gpt-oss)
                summary = "\n\n".join(str(p.get("text", "")) for p in item.get("content") or [] if isinstance(p, dict))
            if summary.strip():
                out.append("\n> **Thinking**\n>\n" + "\n".join("> " + line for line in summary.strip().splitlines())
                           + "\n")
        elif it.is_call(item):
            name = item.get("name") or kind
            body = item.get("arguments") or item.get("input") or json.dumps(item.get("action") or {}, indent=2)
            out.append(f"\n### Tool call: `{name}`\n\n" + _fence(str(body)))
            output = outputs.get(it.call_id(item))
            if output is not None:
                result = output.get("output")
                out.append("\nOutput:\n\n" + _fence(result if isinstance(result, str) else json.dumps(result)))
        elif it.is_output(item):
            continue  # shown with its call
        elif kind in HOSTED_TYPES:  # what the server's own tool did
            view = hosted_view(item)
            out.append(f"\n### {view.title}\n\n" + (_fence(view.code, "python") if view.code else "")
                       + "".join(f"- {line}\n" for line in view.lines))
        elif kind == "compaction":
            out.append("\n*(the earlier conversation was compacted by the server)*\n")
        else:
            out.append(f"\n*({kind} item)*\n")
    # Markdown files get opened in terminals too: no control sequences in them either.
    return sanitize("".join(out))
