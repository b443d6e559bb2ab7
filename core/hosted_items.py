"""What the server's own tools did, read from their items for the screen, the export
and the inspector: web search (its queries, then its sources), file search (queries and
hits), code interpreter (its code, then logs, images and files), image generation, and
remote MCP (tools listed, calls with arguments and output, approval requests); and a
message's sources as numbered references: `url_citation` (a web page),
`file_citation` (a file of a vector store), `container_file_citation` (a file the code
interpreter made).

Everything here is the server's text, so hostile: callers sanitise what they show
(`citation_line` is sanitised already), and a link is offered only for an http(s) URL
that `safe_link` accepts.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlsplit

import msgspec

from rivulet.core.sanitize import sanitize

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


SOURCE_URL_MAX = 120  # of a source's URL shown beside its title (a longer one ends in "…")
SOURCE_TITLE_MAX = 200
SOURCE_ID_MAX = 80
FILE_KINDS = {"file_citation": "file", "container_file_citation": "container_file"}


class Citation(msgspec.Struct, frozen=True, dict=True):
    number: int
    title: str  # the page's title (its URL without one), or the file's name (its id without one)
    url: str | None  # a web page's URL as sent (shown); `link` is what a terminal may open
    link: str | None
    kind: str = "url"  # "url", "file" (a vector store's) or "container_file" (the code interpreter's)
    file_id: str | None = None
    container_id: str | None = None  # where a container file lives (its download is under it)


def clip(text: str, limit: int) -> str:
    """`text` whole, or cut to `limit` characters with "…" as the last."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def citation_parts(ref: Citation) -> tuple[str, str]:
    """(title, where: its URL, or which file), sanitised, each bounded."""
    title = clip(sanitize(ref.title), SOURCE_TITLE_MAX)
    if ref.kind == "url":
        return title, clip(sanitize(ref.url or ""), SOURCE_URL_MAX)
    where = ("code interpreter file " if ref.kind == "container_file" else "file ") + \
        clip(sanitize(ref.file_id or "?"), SOURCE_ID_MAX)
    if ref.container_id:
        where += " in container " + clip(sanitize(ref.container_id), SOURCE_ID_MAX)
    return title, where


def citation_line(ref: Citation) -> str:
    """`[1] Title — https://…` / `[2] ai.pdf — file file-…`: sanitised, each part bounded."""
    title, where = citation_parts(ref)
    return f"[{ref.number}] {title} — {where}"


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
    """A message's sources (url, file and container file citations), numbered in the
    order it cites them, one per URL or file."""
    out: list[Citation] = []
    seen: set[tuple[str, str]] = set()
    content = item.get("content")
    for part in content if isinstance(content, list) else []:
        annotations = part.get("annotations") if isinstance(part, dict) else None
        for note in annotations if isinstance(annotations, list) else []:
            ref = _citation(note, len(out) + 1) if isinstance(note, dict) else None
            key = (ref.kind, ref.url or ref.file_id or "") if ref is not None else None
            if ref is not None and key is not None and key not in seen:
                seen.add(key)
                out.append(ref)
    return out


def _citation(note: Item, number: int) -> Citation | None:
    kind = note.get("type")
    title = note.get("title") if kind == "url_citation" else note.get("filename")
    if kind == "url_citation":
        url = note.get("url")
        if not isinstance(url, str):
            return None
        return Citation(number, title if isinstance(title, str) and title else url, url, safe_link(url))
    file_id, container = note.get("file_id"), note.get("container_id")
    if kind not in FILE_KINDS or not isinstance(file_id, str) or not file_id:
        return None
    return Citation(number, title if isinstance(title, str) and title else file_id, None, None, FILE_KINDS[kind],
                    file_id, container if isinstance(container, str) and container else None)


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
                view.lines.append(f"image: {_image_said(out.get('url'))}")
            elif isinstance(out, dict) and out.get("type") == "files":  # the files it wrote
                view.lines += [f"file: {_text(f.get('file_id') or '?', SOURCE_ID_MAX)}"
                               + (f" ({_text(f['mime_type'], 80)})" if isinstance(f.get("mime_type"), str) else "")
                               for f in _list(out.get("files")) if isinstance(f, dict)]
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


def image_data(url: Any) -> tuple[str, str] | None:
    """(format, base64) of a `data:image/…;base64,` URL, else None."""
    if not isinstance(url, str) or not url.startswith("data:image/"):
        return None
    head, _, data = url.partition(",")
    kind = head.removeprefix("data:image/").partition(";")[0]
    return (kind.upper() or "image", data) if head.endswith(";base64") else None


def _image_said(url: Any) -> str:
    """An image output: its format and size when it came inline (a data URL), else its URL."""
    inline = image_data(url)
    if inline is not None:
        return f"{_text(inline[0], 20)}, {len(inline[1]) * 3 // 4 // 1024:,} KB"
    return clip(url, SOURCE_URL_MAX) if isinstance(url, str) and url else "?"


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
