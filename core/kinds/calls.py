"""Calls the client runs (function, custom tool, shell, apply_patch, computer) and their
outputs. A call is shown with its output; an output alone only when its call is gone."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rivulet.core import items as it
from rivulet.core.hosted_items import HostedView

from .kind import Item, ItemKind, fence


def call_body(item: Item) -> str:
    """The call's arguments as the user reads them: short JSON on one line, longer indented."""
    if "arguments" in item:
        raw = str(item.get("arguments") or "")
        try:
            parsed = json.loads(raw)
        except ValueError:
            return raw
        compact = json.dumps(parsed, ensure_ascii=False)
        return compact if len(compact) <= 80 else json.dumps(parsed, indent=2, ensure_ascii=False)
    if "input" in item:
        return str(item.get("input") or "")
    action = item.get("action") or item.get("operation")
    if action is not None:
        return json.dumps(action, indent=2, ensure_ascii=False)
    return ""


def patch_text(item: Item) -> str | None:
    """The patch an apply_patch call carries, or None for any other call: a custom tool's
    input, or the `input` field of a function call's JSON arguments (a server that drops
    custom tools, llama.cpp, is offered apply_patch as a function). The live entry and
    the frozen (old) one both draw this."""
    if item.get("name") != "apply_patch":
        return None
    if item.get("type") == "custom_tool_call":
        return str(item.get("input") or "")
    try:
        args = json.loads(item.get("arguments") or "{}")
    except ValueError:
        return None
    return str(args.get("input") or "") if isinstance(args, dict) else None


def shell_command(item: Item) -> str | None:
    """`$ command` for a call of the shell function tool, else None."""
    if item.get("type") != "function_call" or item.get("name") != "shell":
        return None
    try:
        args = json.loads(item.get("arguments") or "{}")
    except ValueError:
        return None
    command = args.get("command") if isinstance(args, dict) else None
    if isinstance(command, list):
        command = " ".join(map(str, command))
    return f"$ {command}" if isinstance(command, str) else None


def call_fields_text(item: Item) -> str:
    """A call's name, arguments, input and action as text (what find looks through)."""
    parts = [item.get(k, "") for k in ("name", "arguments", "input", "action")]
    return "\n".join(p if isinstance(p, str) else json.dumps(p) for p in parts)


def output_text(item: Item) -> str:
    out = item.get("output")
    if isinstance(out, str):
        return out
    if isinstance(out, list) and all(isinstance(p, dict) for p in out):
        return "\n".join(_part_text(p) for p in out)  # an MCP result: text and images
    return json.dumps(out, indent=2, ensure_ascii=False)


def _part_text(part: dict[str, Any]) -> str:
    """One content part of an output, as a line (an image's data is not text to show)."""
    if part.get("type") == "input_text":
        return str(part.get("text") or "")
    if part.get("type") == "input_image":
        url = str(part.get("image_url") or "")
        if not url.startswith("data:"):
            return "[image]"
        data = url.split(",", 1)[-1]
        size = len(data) * 3 // 4 - data[-2:].count("=")  # the decoded size, without decoding
        return f"[image {url[5:].split(';', 1)[0]}, {size:,} bytes]"
    return json.dumps(part, ensure_ascii=False)


class ToolCall(ItemKind):
    """Every call type, the client's and a hosted shell's (the server sends its output)."""

    name: ClassVar[str] = "call"
    types: ClassVar[frozenset[str]] = frozenset(it.CALL_OUTPUT_TYPES)

    def icon(self, item: Item) -> str:
        return "⚙"

    def view(self, item: Item) -> HostedView:
        name = item.get("name") or it.item_type(item)
        body = shell_command(item) or call_body(item)
        return HostedView(title=str(name), code=body or None)

    def search_text(self, item: Item, output: Item | None) -> str:
        return call_fields_text(item) + ("\n" + output_text(output) if output is not None else "")

    def brief(self, item: Item) -> str:
        return f"{item.get('name') or it.item_type(item)}({item.get('arguments') or item.get('input') or ''})"

    def markdown(self, item: Item, output: Item | None) -> str:
        name = item.get("name") or it.item_type(item)
        body = item.get("arguments") or item.get("input") or json.dumps(item.get("action") or {}, indent=2)
        out = f"\n### Tool call: `{name}`\n\n" + fence(str(body))
        if output is not None:
            result = output.get("output")
            out += "\nOutput:\n\n" + fence(result if isinstance(result, str) else json.dumps(result))
        return out


class ToolOutput(ItemKind):
    name: ClassVar[str] = "output"
    types: ClassVar[frozenset[str]] = it.OUTPUT_TYPES

    def view(self, item: Item) -> HostedView:
        return HostedView(title=it.item_type(item), lines=[output_text(item)])

    def search_text(self, item: Item, output: Item | None) -> str:
        return output_text(item)

    def brief(self, item: Item) -> str:
        out = item.get("output")
        return out if isinstance(out, str) else json.dumps(out, default=str)

    def markdown(self, item: Item, output: Item | None) -> str:
        return ""  # written with its call
