"""Reasoning: its summary (a bold heading per part, as OpenAI's models write them), or
the raw reasoning text a local server sends instead (llama.cpp, gpt-oss)."""

from __future__ import annotations

from typing import Any, ClassVar

from rivulet.core.hosted_items import HostedView

from .kind import Item, ItemKind


def _parts(item: Item, name: str) -> list[dict[str, Any]]:
    """The dict parts of a list field; a field of another type shows as empty."""
    value = item.get(name)
    return [p for p in value if isinstance(p, dict)] if isinstance(value, list) else []


def reasoning_summary(item: Item) -> str:
    parts = [p.get("text", "") for p in _parts(item, "summary")]
    return "\n\n".join(str(p) for p in parts if p)


def reasoning_raw(item: Item) -> str:
    parts = [p.get("text", "") for p in _parts(item, "content")]
    return "".join(str(p) for p in parts if p)


def heading_of(summary: str) -> str | None:
    """The bold first line reasoning summaries start with ("**Planning the fix**")."""
    for line in reversed(summary.strip().splitlines()):
        line = line.strip()
        if line.startswith("**") and line.endswith("**") and len(line) > 4:
            return line.strip("*").strip()
    return None


class Reasoning(ItemKind):
    name: ClassVar[str] = "reasoning"
    types: ClassVar[frozenset[str]] = frozenset({"reasoning"})

    def view(self, item: Item) -> HostedView:
        text = reasoning_summary(item) or reasoning_raw(item)
        heading = heading_of(text)
        return HostedView(title=f"Thought: {heading}" if heading else "Thought", lines=[text] if text else [])

    def search_text(self, item: Item, output: Item | None) -> str:
        return reasoning_summary(item) or reasoning_raw(item)  # what the Thought shows when expanded

    def brief(self, item: Item) -> str:
        return reasoning_summary(item) or reasoning_raw(item)

    def markdown(self, item: Item, output: Item | None) -> str:
        summary = "\n\n".join(str(p.get("text", "")) for p in _parts(item, "summary"))
        if not summary.strip():  # a server that sends only raw reasoning (llama.cpp, gpt-oss)
            summary = "\n\n".join(str(p.get("text", "")) for p in _parts(item, "content"))
        if not summary.strip():
            return ""
        return "\n> **Thinking**\n>\n" + "\n".join("> " + line for line in summary.strip().splitlines()) + "\n"
