"""The server's own tools: web search, file search, code interpreter, image generation,
remote MCP. What they did is read by core/hosted_items.py; this is their place in the
registry, with their icons and the images they carry."""

from __future__ import annotations

from typing import ClassVar

from rivulet.core.hosted_items import HOSTED_TYPES, HostedView, hosted_view, image_data

from .kind import Item, ItemKind, fence

ICONS = {"web_search_call": "🔎", "file_search_call": "🗂", "code_interpreter_call": "▶",
         "image_generation_call": "🖼", "mcp_list_tools": "⚙", "mcp_call": "⚙", "mcp_approval_request": "?",
         "mcp_approval_response": "✓"}


class HostedTool(ItemKind):
    name: ClassVar[str] = "hosted"
    types: ClassVar[frozenset[str]] = HOSTED_TYPES

    def icon(self, item: Item) -> str:
        return ICONS.get(str(item.get("type")), "•")

    def view(self, item: Item) -> HostedView:
        return hosted_view(item)

    def images(self, item: Item) -> list[str]:
        if item.get("type") == "image_generation_call" and isinstance(item.get("result"), str):
            return [item["result"]]
        outputs = item.get("outputs") if item.get("type") == "code_interpreter_call" else None
        found = []
        for out in outputs if isinstance(outputs, list) else []:
            inline = image_data(out.get("url")) if isinstance(out, dict) and out.get("type") == "image" else None
            if inline is not None:
                found.append(inline[1])
        return found

    def brief(self, item: Item) -> str:
        return hosted_view(item).title

    def markdown(self, item: Item, output: Item | None) -> str:
        view = hosted_view(item)
        return (f"\n### {view.title}\n\n" + (fence(view.code, "python") if view.code else "")
                + "".join(f"- {line}\n" for line in view.lines))
