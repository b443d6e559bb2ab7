"""The server's own tools (web search, file search, code interpreter, image generation,
remote MCP): what the `hosted_tools` setting may hold, and the tool objects sent.

A setting entry is a type name alone (`"web_search"`) or the API's tool object
(`{"type": "mcp", "server_label": ..., "server_url": ...}`); a name alone gets the
defaults below. Checked when the settings load: a bad entry is a one-line error.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# The defaults of a type named alone. file_search and mcp need ids or a server: an object.
DEFAULTS: dict[str, dict[str, Any] | None] = {
    "web_search": {"type": "web_search"},
    "file_search": None,
    "code_interpreter": {"type": "code_interpreter", "container": {"type": "auto"}},
    "image_generation": {"type": "image_generation", "partial_images": 2},
    "mcp": None,
}
NEEDS = {"file_search": ("vector_store_ids",), "mcp": ("server_label",)}


def normalise(entries: Iterable[Any]) -> list[dict[str, Any]]:
    """The tool objects of a `hosted_tools` setting; ValueError names the first bad entry."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        if isinstance(entry, str):
            default = DEFAULTS.get(entry, {})
            if default is None:
                raise ValueError(f"hosted tool {entry!r} needs its options: write it as a table "
                                 f"with {', '.join(NEEDS[entry])}")
            if not default:
                raise ValueError(f"unknown hosted tool {entry!r} (known: {', '.join(DEFAULTS)})")
            out.append(dict(default))
            continue
        if not isinstance(entry, dict) or entry.get("type") not in DEFAULTS:
            kind = entry.get("type") if isinstance(entry, dict) else type(entry).__name__
            raise ValueError(f"unknown hosted tool {kind!r} (known: {', '.join(DEFAULTS)})")
        missing = [k for k in NEEDS.get(entry["type"], ()) if not entry.get(k)]
        if entry["type"] == "mcp" and not (entry.get("server_url") or entry.get("connector_id")):
            missing.append("server_url")
        if missing:
            raise ValueError(f"hosted tool {entry['type']!r} needs {', '.join(missing)}")
        out.append({**(DEFAULTS[entry["type"]] or {}), **entry})
    return out


def parse_hosted_tools(entries: Iterable[Any]) -> list[dict[str, Any]]:
    """As `normalise`, for settings already checked (an error here is a programming one)."""
    return normalise(entries)


def name_of(tool: dict[str, Any]) -> str:
    """What /tools calls a tool: its type, or `mcp:label` for a remote MCP server."""
    if tool.get("type") == "mcp":
        return f"mcp:{tool.get('server_label')}"
    return str(tool.get("type"))


def hosted_specs(tools: list[dict[str, Any]], off: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The tool objects sent: every configured one not switched off by /tools."""
    skip = set(off)
    return [t for t in tools if name_of(t) not in skip]


# What each tool's item leaves out unless asked for (the API's `include` values).
INCLUDES = {
    "web_search": "web_search_call.action.sources",
    "file_search": "file_search_call.results",
    "code_interpreter": "code_interpreter_call.outputs",
}


def hosted_includes(tools: list[dict[str, Any]]) -> list[str]:
    """The `include` values that make the sent tools' items carry what rivulet shows:
    a search's sources, a file search's hits, the code interpreter's logs and files."""
    return [INCLUDES[t["type"]] for t in tools if t.get("type") in INCLUDES]
