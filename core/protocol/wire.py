"""Wire events: the Responses stream exactly as the server sent it.

One pydantic model per known event `type`, dispatched on that field by a tagged union
validated straight from the JSON text (pydantic's Rust parser, no `json.loads` first).
Every model keeps unknown fields (`extra="allow"`), so nothing the server sent is lost;
items and response objects stay plain dicts, the server's own JSON.

The same payloads arrive as SSE `data:` lines and as WebSocket text frames, so both
transports call `parse_wire`.
"""

from __future__ import annotations

import json
import logging
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from rivulet.core.errors import MalformedEventError

log = logging.getLogger(__name__)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=False)
    sequence_number: int | None = None


class _ItemScoped(_Wire):
    """Events addressed to one output item. `item_id` is missing in some hosted-tool
    events (shell_call_command.*) and `output_index` in llama.cpp's streams."""

    item_id: str | None = None
    output_index: int | None = None


# ---- response lifecycle --------------------------------------------------------------


class ResponseCreatedWire(_Wire):
    type: Literal["response.created"]
    response: dict[str, Any]


class ResponseInProgressWire(_Wire):
    type: Literal["response.in_progress", "response.queued"]
    response: dict[str, Any] = Field(default_factory=dict)


class ResponseCompletedWire(_Wire):
    type: Literal["response.completed"]
    response: dict[str, Any]


class ResponseFailedWire(_Wire):
    type: Literal["response.failed"]
    response: dict[str, Any] = Field(default_factory=dict)


class ResponseIncompleteWire(_Wire):
    type: Literal["response.incomplete"]
    response: dict[str, Any] = Field(default_factory=dict)


class ErrorWire(_Wire):
    """The top-level `error` event. The spec puts code/message at the top; real
    streams and WebSocket frames nest them under `error` and may add `status`."""

    type: Literal["error"]
    # Any: an error is reported whatever the shapes of its fields (`error_from_event`
    # reads them defensively); a wrong type must never hide the server's message.
    code: Any = None
    message: Any = None
    param: Any = None
    status: Any = None
    error: Any = None


# ---- item lifecycle ------------------------------------------------------------------


class OutputItemAddedWire(_Wire):
    type: Literal["response.output_item.added"]
    output_index: int | None = None
    item: dict[str, Any]


class OutputItemDoneWire(_Wire):
    type: Literal["response.output_item.done"]
    output_index: int | None = None
    item: dict[str, Any]


class ContentPartWire(_ItemScoped):
    type: Literal["response.content_part.added", "response.content_part.done"]
    content_index: int | None = None
    part: dict[str, Any] = Field(default_factory=dict)


class SummaryPartWire(_ItemScoped):
    type: Literal["response.reasoning_summary_part.added", "response.reasoning_summary_part.done"]
    summary_index: int | None = None
    part: dict[str, Any] = Field(default_factory=dict)


# ---- deltas ----------------------------------------------------------------------------


class TextDeltaWire(_ItemScoped):
    """Every delta whose payload is a string, one model for all kinds (the hot path)."""

    type: Literal[
        "response.output_text.delta",
        "response.refusal.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_text.delta",
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
        "response.code_interpreter_call_code.delta",
        "response.shell_call_command.delta",
        "response.apply_patch_call_operation_diff.delta",
        "response.mcp_call_arguments.delta",
    ]
    delta: str
    content_index: int | None = None
    summary_index: int | None = None
    command_index: int | None = None


class ObjectDeltaWire(_ItemScoped):
    """Deltas whose payload is an object (hosted shell output: {"stdout": ...})."""

    type: Literal["response.shell_call_output_content.delta"]
    delta: dict[str, Any] | str
    command_index: int | None = None


class TextDoneWire(_ItemScoped):
    """`*.done` for the string deltas: the finished text under a kind-specific name."""

    type: Literal[
        "response.output_text.done",
        "response.refusal.done",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.done",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.done",
        "response.code_interpreter_call_code.done",
        "response.shell_call_command.done",
        "response.shell_call_command.added",
        "response.apply_patch_call_operation_diff.done",
        "response.mcp_call_arguments.done",
        "response.shell_call_output_content.done",
    ]
    content_index: int | None = None
    summary_index: int | None = None
    text: str | None = None
    refusal: str | None = None
    arguments: str | None = None
    input: str | None = None
    code: str | None = None
    command: str | None = None
    diff: str | None = None


class ItemProgressWire(_ItemScoped):
    """Status and side-channel events of an item: hosted tools' in_progress/searching/
    completed, annotations, partial images."""

    type: Literal[
        "response.output_text.annotation.added",
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.file_search_call.in_progress",
        "response.file_search_call.searching",
        "response.file_search_call.completed",
        "response.code_interpreter_call.in_progress",
        "response.code_interpreter_call.interpreting",
        "response.code_interpreter_call.completed",
        "response.image_generation_call.in_progress",
        "response.image_generation_call.generating",
        "response.image_generation_call.partial_image",
        "response.image_generation_call.completed",
        "response.mcp_call.in_progress",
        "response.mcp_call.completed",
        "response.mcp_call.failed",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.mcp_list_tools.failed",
        "response.reasoning_summary_text.annotation.added",
    ]


WireEvent = Annotated[
    (TextDeltaWire  # first: >95% of a real stream
     | ResponseCreatedWire | ResponseInProgressWire | ResponseCompletedWire | ResponseFailedWire
     | ResponseIncompleteWire | ErrorWire | OutputItemAddedWire | OutputItemDoneWire | ContentPartWire
     | SummaryPartWire | ObjectDeltaWire | TextDoneWire | ItemProgressWire),
    Field(discriminator="type"),
]


class UnknownWire(BaseModel):
    """An event type this client does not know: traced and ignored."""

    model_config = ConfigDict(extra="allow")
    type: str


_ADAPTER: TypeAdapter[Any] = TypeAdapter(WireEvent)
_VALIDATE_JSON = _ADAPTER.validator.validate_json  # the core validator: skips a Python wrapper layer
KNOWN_TYPES: frozenset[str] = frozenset(
    t for m in WireEvent.__origin__.__args__ for t in m.model_fields["type"].annotation.__args__  # type: ignore[attr-defined]
)


def parse_wire(data: str | bytes) -> BaseModel:
    """Parse one SSE data payload / WebSocket frame.

    Returns a known wire model, or `UnknownWire` for a well-formed event of a type we
    do not know. Raises `MalformedEventError` for text that is not a JSON event or a
    known event that lacks a required field.
    """
    try:
        model: BaseModel = _VALIDATE_JSON(data)
        return model
    except ValidationError as exc:
        return _parse_slow(data, exc)


# Display-only fields: one of the wrong type is dropped (treated as missing) instead
# of failing the event. Every other field is needed by the turn (`delta`, `item`,
# `item_id`, the completed `response`), and a wrong one is a MalformedEventError.
_DISPLAY_ONLY: frozenset[str] = frozenset({
    "sequence_number", "output_index", "content_index", "summary_index", "command_index", "part",
    "text", "refusal", "arguments", "input", "code", "command", "diff",
})
_DROPPABLE_RESPONSE: frozenset[str] = frozenset({
    "response.created", "response.in_progress", "response.queued", "response.failed", "response.incomplete",
})


_WARNED: set[tuple[str, ...]] = set()


def _parse_slow(data: str | bytes, exc: ValidationError) -> BaseModel:
    try:
        obj = json.loads(data)
    except ValueError:
        raise MalformedEventError(f"event data is not JSON: {_preview(data)}") from None
    if isinstance(obj, dict) and "type" not in obj and "error" in obj:
        # llama.cpp's bare error frame: `data: {"error": {...}}` with no type.
        return ErrorWire.model_validate({"type": "error", "error": obj["error"]})
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise MalformedEventError(f"event without a string 'type': {_preview(data)}") from None
    if obj["type"] not in KNOWN_TYPES:
        log.debug("ignoring unknown event type %r", obj["type"])
        return UnknownWire.model_validate(obj)
    dropped: list[str] = []
    for _ in range(len(obj)):
        for error in exc.errors():
            loc = error.get("loc", ())
            name = loc[1] if len(loc) > 1 else None
            droppable = name in _DISPLAY_ONLY or (name == "response" and obj["type"] in _DROPPABLE_RESPONSE)
            if not isinstance(name, str) or not droppable or name not in obj:
                where = ".".join(str(p) for p in loc[1:]) or "?"
                raise MalformedEventError(f"{obj['type']}: bad field {where!r}: {error.get('msg')}") from None
            del obj[name]
            dropped.append(name)
        try:
            model: BaseModel = _ADAPTER.validate_python(obj)
        except ValidationError as again:
            exc = again
            continue
        if dropped and (obj["type"], *dropped) not in _WARNED:
            _WARNED.add((obj["type"], *dropped))  # once each: a broken server repeats itself
            log.warning("%s: ignored display-only field(s) of the wrong type: %s", obj["type"], ", ".join(dropped))
        return model
    raise MalformedEventError(f"{obj['type']}: bad fields") from None


def _preview(data: str | bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text[:limit] + ("…" if len(text) > limit else ""))
