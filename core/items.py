"""What the client needs to know about Responses item types (plain dicts, as sent)."""

from __future__ import annotations

from typing import Any

Item = dict[str, Any]

# Calls the *client* executes, and the item type that carries each one's output back.
# Hosted tools (web_search_call, mcp_call, code_interpreter_call, ...) run on the
# server and need nothing from us.
CALL_OUTPUT_TYPES: dict[str, str] = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "computer_call": "computer_call_output",
}
OUTPUT_TYPES: frozenset[str] = frozenset(CALL_OUTPUT_TYPES.values())
# Item types only a client sends (its tools' results, its answers to the server): in a
# response's output they cannot be the model's, whatever the server says.
INPUT_ONLY_TYPES: frozenset[str] = OUTPUT_TYPES | {"mcp_approval_response", "item_reference"}


def item_type(item: Item) -> str:
    """The item's `type`, or "" when it is missing or not a string (a hostile or
    broken server may send anything)."""
    value = item.get("type")
    return value if isinstance(value, str) else ""


def is_call(item: Item) -> bool:
    """A call the client must answer. A hosted shell_call (it names a container
    `environment`) runs on the server, which sends its output itself."""
    if item_type(item) not in CALL_OUTPUT_TYPES:
        return False
    env = item.get("environment")
    return not (isinstance(env, dict) and env.get("type") not in (None, "local"))


def is_output(item: Item) -> bool:
    return item_type(item) in OUTPUT_TYPES


def hosted_call_id(item: Item) -> str | None:
    """The call_id of a call the server runs itself (a hosted shell_call), else None."""
    return call_id(item) if item_type(item) in CALL_OUTPUT_TYPES and not is_call(item) else None


def foreign_reason(item: Item, hosted: set[str] | frozenset[str] = frozenset()) -> str | None:
    """Why an item in a response's output cannot be the model's own words, or None: a
    message in another role (`user`, `developer`, `system`) or an input-only type (a
    `function_call_output` would be taken as a tool's result). Only the model speaks
    as the model. The output of a call the server ran itself (its call_id in `hosted`,
    a hosted shell's `shell_call_output`) is the server's to send."""
    kind = item_type(item)
    if kind in OUTPUT_TYPES and call_id(item) in hosted:
        return None
    if kind in INPUT_ONLY_TYPES:
        return f"a {kind} (only the client sends those)"
    if kind == "message":
        role = item.get("role")
        if role not in (None, "assistant"):
            return f"a message in the role {str(role)[:40]!r}"
    return None


def call_id(item: Item) -> str | None:
    value = item.get("call_id")
    return value if isinstance(value, str) and value else None


def message_text(item: Item) -> str | None:
    """The visible text of an assistant message item (output_text and refusal parts)."""
    if item.get("type") != "message":
        return None
    parts = item.get("content")
    if isinstance(parts, str):  # a shorthand some servers use for input messages
        return parts
    if not isinstance(parts, list):
        return ""
    texts = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") in ("output_text", "input_text", "text"):
            texts.append(str(part.get("text") or ""))
        elif part.get("type") == "refusal":
            texts.append(str(part.get("refusal") or ""))
    return "".join(texts)


# The fields a client-executed call needs to be run and answered, by item type.
_CALL_FIELDS: dict[str, tuple[str, ...]] = {
    "function_call": ("call_id", "name", "arguments"),
    "custom_tool_call": ("call_id", "name", "input"),
}


def invalid_reason(item: Item) -> str | None:
    """Why an item cannot be committed (a field the turn needs has the wrong type),
    or None. Display-only fields are never checked: a wrong one is shown as missing."""
    if not isinstance(item.get("type", ""), str):
        return f"'type' must be a string, got {type(item.get('type')).__name__}"
    for name in _CALL_FIELDS.get(item_type(item), ()):
        value = item.get(name)
        if not isinstance(value, str):
            return f"{item_type(item)} field {name!r} must be a string, got {_type_name(value)}"
    if is_call(item) and item_type(item) not in _CALL_FIELDS and call_id(item) is None:
        return f"{item_type(item)} has no string 'call_id'"
    return None


def malformed_reason(item: Item) -> str | None:
    """Why an assistant message is dropped rather than kept: its `content` is neither a
    list of parts nor the string shorthand, so it has no text to show and the API would
    refuse it back in the next request. None for any other item."""
    if item.get("type") != "message" or isinstance(item.get("content"), (list, str)):
        return None
    content = item.get("content")
    said = {bool: "a boolean", int: "a number", float: "a number", dict: "an object", type(None): "null"}
    return f"its 'content' is {said.get(type(content), type(content).__name__)}, not a list"


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "an array", type(None): "nothing"}.get(type(value), type(value).__name__)


def user_message(text: str) -> Item:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def aborted_output(call: Item, note: str = "aborted") -> Item:
    """The output that stands in for a call that never got one (Codex does the same),
    so that the next request is valid. Its shape is exactly what the call's output
    type requires (checked against the openai SDK's input types in the tests)."""
    kind = CALL_OUTPUT_TYPES[item_type(call)]
    out: Item = {"type": kind, "call_id": call_id(call)}
    if kind == "apply_patch_call_output":
        out.update(status="failed", output=note)
    elif kind == "shell_call_output":
        # Not run: no exit code exists. 130 is what a shell reports for an interrupted
        # command, and stderr carries why.
        out["output"] = [{"stdout": "", "stderr": note, "outcome": {"type": "exit", "exit_code": 130}}]
    elif kind == "computer_call_output":
        # rivulet offers no computer tool; the type requires a screenshot, so the
        # model gets a blank one (a 1x1 transparent PNG).
        out["output"] = {"type": "computer_screenshot", "image_url": _BLANK_PNG}
    else:
        out["output"] = note
    return out


_BLANK_PNG = ("data:image/png;base64,"
              "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")


def item_key(item: Item, output_index: int | None) -> str:
    """How the state machine identifies an item: its id, else its output index."""
    item_id = item.get("id")
    if isinstance(item_id, str) and item_id:
        return item_id
    return f"#{output_index}" if output_index is not None else "#anonymous"
