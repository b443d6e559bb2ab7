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


def is_call(item: Item) -> bool:
    """A call the client must answer. A hosted shell_call (it names a container
    `environment`) runs on the server, which sends its output itself."""
    if item.get("type") not in CALL_OUTPUT_TYPES:
        return False
    env = item.get("environment")
    return not (isinstance(env, dict) and env.get("type") not in (None, "local"))


def is_output(item: Item) -> bool:
    return item.get("type") in OUTPUT_TYPES


def call_id(item: Item) -> str | None:
    value = item.get("call_id")
    return value if isinstance(value, str) and value else None


def message_text(item: Item) -> str | None:
    """The visible text of an assistant message item (output_text and refusal parts)."""
    if item.get("type") != "message":
        return None
    parts = item.get("content") or []
    texts = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") in ("output_text", "input_text", "text"):
            texts.append(str(part.get("text") or ""))
        elif part.get("type") == "refusal":
            texts.append(str(part.get("refusal") or ""))
    return "".join(texts)


def user_message(text: str) -> Item:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def aborted_output(call: Item, note: str = "aborted") -> Item:
    """The output that stands in for a call that never got one (Codex does the same),
    so that the next request is valid."""
    return {"type": CALL_OUTPUT_TYPES[call["type"]], "call_id": call_id(call), "output": note}


def item_key(item: Item, output_index: int | None) -> str:
    """How the state machine identifies an item: its id, else its output index."""
    item_id = item.get("id")
    if isinstance(item_id, str) and item_id:
        return item_id
    return f"#{output_index}" if output_index is not None else "#anonymous"
