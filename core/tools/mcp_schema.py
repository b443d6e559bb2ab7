"""MCP tools as Responses API function tools: a unique, legal name for each, and an
input schema the API accepts.

Names are `server__tool`, within the API's `^[a-zA-Z0-9_-]+$` and 64 characters: other
characters become `_`, and a name that is too long or already taken keeps a prefix and
gets a short hash of the full `server/tool`, so it stays unique and stable across runs.

Schemas come from servers and may use any JSON Schema: the top is made an object with
`properties`, keywords the API does not take are dropped (`oneOf` becomes `anyOf`), and
the tool is never `strict` (strict mode would require every property to be required).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

MAX_NAME = 64
_ILLEGAL = re.compile(r"[^a-zA-Z0-9_-]")
# Keywords kept, everywhere in the schema; anything else is dropped.
_KEEP = frozenset({
    "type", "properties", "required", "items", "enum", "const", "description", "title", "default",
    "anyOf", "additionalProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "$ref", "$defs",
    "definitions", "nullable",
})
_SCHEMA_MAPS = frozenset({"properties", "$defs", "definitions"})  # name -> schema
_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`server__tool`, legal and not in `taken` (which it is added to)."""
    name = _ILLEGAL.sub("_", f"{server}__{tool}")
    if len(name) > MAX_NAME or name in taken:
        digest = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()
        n = 0
        while True:
            suffix = "_" + digest[n:n + 8]
            candidate = name[: MAX_NAME - len(suffix)] + suffix
            if candidate not in taken:
                name = candidate
                break
            n += 1
    taken.add(name)
    return name


def _clean(schema: Any, depth: int = 0) -> Any:
    if depth > 32 or not isinstance(schema, dict):  # absurd nesting: accept anything there
        return {} if not isinstance(schema, bool) else schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "oneOf":
            key = "anyOf"
        if key not in _KEEP:
            continue
        if key in _SCHEMA_MAPS:
            if isinstance(value, dict):
                out[key] = {str(k): _clean(v, depth + 1) for k, v in value.items()}
        elif key == "anyOf":
            if isinstance(value, list) and value:
                out[key] = [_clean(v, depth + 1) for v in value]
        elif key in ("items", "additionalProperties"):
            if isinstance(value, dict | bool):
                out[key] = _clean(value, depth + 1)
        elif key == "required":
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                out[key] = value
        elif key == "type":
            types = value if isinstance(value, list) else [value]
            kept = [t for t in types if t in _TYPES]
            if kept:
                out[key] = kept if isinstance(value, list) else kept[0]
        elif key == "description" or key == "title":
            if isinstance(value, str):
                out[key] = value
        else:
            out[key] = value
    return out


def input_schema(schema: Any) -> dict[str, Any]:
    """A server's input schema as the Responses API accepts it: an object at the top."""
    cleaned = _clean(schema)
    if not isinstance(cleaned, dict) or cleaned.get("type") not in (None, "object"):
        return {"type": "object", "properties": {}}
    cleaned["type"] = "object"
    cleaned.setdefault("properties", {})
    cleaned.pop("anyOf", None)  # a union at the top is not an object schema
    return cleaned


def function_spec(name: str, server: str, tool: str, description: str | None, schema: Any) -> dict[str, Any]:
    text = (description or "").strip()
    text = f"[MCP server {server}, tool {tool}] {text}".strip()
    return {"type": "function", "name": name, "description": text[:1024], "parameters": input_schema(schema)}
