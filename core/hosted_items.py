"""What the server's own tools did, read from their items for the screen, the export
and the inspector: web search (its queries, then its sources), file search (queries and
hits), code interpreter (its code, then logs and files), image generation, and remote
MCP (tools listed, calls with arguments and output, approval requests); and a message's
`url_citation` annotations as numbered references.

Everything here is the server's text, so hostile: callers sanitise what they show, and
a link is offered only for an http(s) URL that `safe_link` accepts.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlsplit

import msgspec

Item = dict[str, Any]
HOSTED_TYPES = frozenset({"web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
                          "mcp_list_tools", "mcp_call", "mcp_approval_request", "mcp_approval_response"})
URL_MAX = 2048  # longer is not a link anyone clicks; cut links mislead
CODE_MAX = 20_000  # characters of code shown (the inspector has it all)
OUTPUT_MAX = 4_000


class HostedView(msgspec.Struct, dict=True):
    """One hosted item, as lines: a title, the code it ran (if any), what came back,
    and the links among it (label, URL) for the terminal to open."""

    title: str
    code: str | None = None
    lines: list[str] = msgspec.field(default_factory=list)
    links: list[tuple[str, str]] = msgspec.field(default_factory=list)


class Citation(msgspec.Struct, frozen=True, dict=True):
    number: int
    title: str
    url: str  # as sent (shown); `link` is what a terminal may open
    link: str | None


def safe_link(url: Any) -> str | None:
    """`url` as a link a terminal may open: http or https with a host, no control
    characters or spaces (percent-encoded where the URL allows), bounded. Else None."""
    if not isinstance(url, str) or len(url) > URL_MAX:
        return None
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in url):
        return None  # ESC, BEL, C1: could end the OSC 8 sequence or start another
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~-._")


def citations(item: Item) -> list[Citation]:
    """A message's `url_citation` annotations, numbered in order, one per URL."""
    out: list[Citation] = []
    seen: set[str] = set()
    content = item.get("content")
    for part in content if isinstance(content, list) else []:
        annotations = part.get("annotations") if isinstance(part, dict) else None
        for note in annotations if isinstance(annotations, list) else []:
            if not isinstance(note, dict) or note.get("type") != "url_citation":
                continue
            url = note.get("url")
            if not isinstance(url, str) or url in seen:
                continue
            seen.add(url)
            title = note.get("title")
            out.append(Citation(len(out) + 1, title if isinstance(title, str) and title else url, url, safe_link(url)))
    return out


def _text(value: Any, limit: int = OUTPUT_MAX) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more characters)"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def hosted_view(item: Item) -> HostedView:
    kind = item.get("type")
    status = item.get("status")
    suffix = f" ({status})" if isinstance(status, str) and status not in ("completed", "") else ""
    if kind == "web_search_call":
        return _web_search(item, suffix)
    if kind == "file_search_call":
        view = HostedView("file search" + suffix)
        view.lines = [f"query: {_text(q, 300)}" for q in _list(item.get("queries"))]
        for hit in _list(item.get("results")):
            if isinstance(hit, dict):
                score = hit.get("score")
                score_text = f" · {score:.2f}" if isinstance(score, (int, float)) else ""
                view.lines.append(f"hit: {_text(hit.get('filename') or hit.get('file_id') or '?', 200)}{score_text}")
                if hit.get("text"):
                    view.lines.append("  " + _text(hit.get("text"), 300).replace("\n", " "))
        if item.get("results") is None and view.lines:
            view.lines.append("hits: not included (add file_search_call.results to include)")
        return view
    if kind == "code_interpreter_call":
        view = HostedView("code interpreter" + suffix, code=_text(item.get("code") or "", CODE_MAX))
        for out in _list(item.get("outputs")):
            if isinstance(out, dict) and out.get("type") == "logs":
                view.lines.append(_text(out.get("logs") or ""))
            elif isinstance(out, dict) and out.get("type") == "image":
                view.lines.append(f"image: {_text(out.get('url') or '', 200)}")
            elif isinstance(out, dict):
                view.lines.append(_text(out, 300))
        return view
    if kind == "image_generation_call":
        result = item.get("result")
        size = len(result) * 3 // 4 if isinstance(result, str) else 0
        view = HostedView("image generation" + suffix)
        if item.get("revised_prompt"):
            view.lines.append(f"prompt: {_text(item.get('revised_prompt'), 500)}")
        view.lines.append(f"image: {size:,} bytes" if size else "no image")
        return view
    if kind == "mcp_list_tools":
        names = [str(t.get("name")) for t in _list(item.get("tools")) if isinstance(t, dict)]
        view = HostedView(f"MCP {_text(item.get('server_label') or '?', 80)}: {len(names)} tools listed" + suffix)
        view.lines = [", ".join(names)] if names else []
        if item.get("error"):
            view.lines.append(f"error: {_text(item.get('error'), 500)}")
        return view
    if kind in ("mcp_call", "mcp_approval_request"):
        label = f"{_text(item.get('server_label') or '?', 80)} · {_text(item.get('name') or '?', 80)}"
        title = f"MCP {label}" + (" asks for approval" if kind == "mcp_approval_request" else suffix)
        view = HostedView(title, lines=[f"arguments: {_text(item.get('arguments') or '', 1000)}"])
        if item.get("output") is not None:
            view.lines.append(f"→ {_text(item.get('output'))}")
        if item.get("error"):
            view.lines.append(f"error: {_text(item.get('error'), 1000)}")
        return view
    if kind == "mcp_approval_response":
        return HostedView("MCP call " + ("approved" if item.get("approve") else "denied"))
    return HostedView(str(kind))


def _web_search(item: Item, suffix: str) -> HostedView:
    given = item.get("action")
    action: dict[str, Any] = given if isinstance(given, dict) else {}
    view = HostedView("web search" + suffix)
    queries = [q for q in _list(action.get("queries")) if isinstance(q, str)] or (
        [action["query"]] if isinstance(action.get("query"), str) else [])
    view.lines = [f"query: {_text(q, 300)}" for q in queries]
    if action.get("type") == "open_page" and action.get("url"):
        view.lines.append(f"opened: {_text(action.get('url'), 300)}")
    if action.get("type") == "find_in_page":
        view.lines.append(f"find {_text(action.get('pattern') or '', 100)!s} in {_text(action.get('url') or '', 300)}")
    for source in _list(action.get("sources")):
        url = source.get("url") if isinstance(source, dict) else None
        if isinstance(url, str):
            view.lines.append(f"source: {_text(url, 300)}")
            link = safe_link(url)
            if link:
                view.links.append((url, link))
    return view


def unanswered_approvals(items: list[Item], history: list[Item]) -> list[Item]:
    """The remote MCP approval requests among `items` with no response in `history` yet."""
    answered = {i.get("approval_request_id") for i in history if i.get("type") == "mcp_approval_response"}
    return [i for i in items if i.get("type") == "mcp_approval_request" and isinstance(i.get("id"), str)
            and i["id"] not in answered]


def approval_response(request: Item, approve: bool) -> Item:
    """The answer to an `mcp_approval_request`, sent in the next request's input."""
    return {"type": "mcp_approval_response", "approval_request_id": request["id"], "approve": approve}
