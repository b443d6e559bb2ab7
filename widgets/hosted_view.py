"""An item drawn from its kind's view (core/kinds), and an answer's sources: one Rich
renderable per item, shared by its entry widget and the frozen lines of old entries.
The server's own tools are drawn this way (issue 27: a code interpreter's inline images
drawn, as generated ones are), and so is any item kind with no widgets of its own. Under
an answer, the numbered references: the web pages, files and code interpreter files it
cites.

Every string is sanitised and set as plain `Text` (never markup). A reference links to
its URL (OSC 8, written by Textual for the style's link) only when `safe_link` accepts
it: http(s), no control characters; any other shows as text alone.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text

from rivulet.core.hosted_items import citation_parts, citations
from rivulet.core.kinds import kind_of
from rivulet.core.sanitize import sanitize

from .image_view import image_renderable

CODE_LINES = 60  # of a long program, the last lines are shown (the inspector has all)
OUTPUT_LINES = 12  # of a long output (logs, an MCP answer), the first lines


def view_renderable(item: dict[str, Any]) -> RenderableType:
    """The item's kind's view: icon and title, its code (the end of a long one), its lines
    (the start of long ones; `source: URL` lines linked), then its images."""
    kind = kind_of(item)
    view = kind.view(item)
    parts: list[RenderableType] = [
        Text.assemble((kind.icon(item) + " ", "bold"), (sanitize(view.title), "bold"))]
    if view.code:
        lines = sanitize(view.code).rstrip("\n").splitlines()
        if len(lines) > CODE_LINES:
            lines = [f"… ({len(lines) - CODE_LINES} lines above)", *lines[-CODE_LINES:]]
        code = Text()
        for n, line in enumerate(lines):
            code.append("│ ", style="dim")
            code.append(line, style="bold" if n == 0 and line.startswith("…") else "")
            if n < len(lines) - 1:
                code.append("\n")
        parts.append(code)
    links = dict(view.links)
    for line in view.lines:
        shown = sanitize(line)
        rows = shown.splitlines()
        if len(rows) > OUTPUT_LINES:
            shown = "\n".join([*rows[:OUTPUT_LINES], f"… ({len(rows) - OUTPUT_LINES} more lines)"])
        url = line.removeprefix("source: ")
        link = links.get(url) if line.startswith("source: ") else None
        text = Text("  ")
        text.append(shown, style=Style(dim=True, link=link) if link else Style(dim=True))
        parts.append(text)
    parts += [image_renderable(data) for data in kind.images(item)]
    return Group(*parts)


def citations_text(item: dict[str, Any]) -> Text | None:
    """`[1] Title — URL` for each web page the answer cites, the title a link, and
    `[2] name — file id` for each file (core hosted_items.citation_parts, styled)."""
    refs = citations(item)
    if not refs:
        return None
    text = Text("Sources", style="bold")
    for ref in refs:
        title, where = citation_parts(ref)
        text.append(f"\n[{ref.number}] ", style="bold")
        text.append(title, style=Style(underline=ref.link is not None, link=ref.link))
        text.append(f" — {where}", style="dim")
    return text
