"""Wire events: the Responses stream exactly as the server sent it.

One msgspec struct per family of event types, one tagged subclass per `type` value, so
a payload is decoded straight from its JSON bytes into the right class in one C call
(no `json.loads` first). Items and response objects stay plain dicts, the server's own
JSON. Fields the client does not know are kept as sent: each event keeps its payload
(`raw`), and `extra_fields` / `as_sent` read them back from it.

The same payloads arrive as SSE `data:` lines and as WebSocket text frames, so both
transports call `parse_wire`.
"""

# No `from __future__ import annotations` here: msgspec would then evaluate every field's
# annotation string, for each of the ~60 tagged classes, when DECODE is built (~25 ms of
# every start). Annotations written as objects are read as they are.
import json
import logging
import re
from typing import Any, ClassVar, Union, cast

import msgspec

from rivulet.core.errors import MalformedEventError

log = logging.getLogger(__name__)
RAW_KEY = "__rivulet_raw__"


class WireEvent(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    """Base of every wire event. `type` is the tag; `raw` is the payload, set by `parse_wire`
    (a slot: a per-instance __dict__ cost a third of the decode). gc=False: an event holds
    decoded JSON, which never refers back to it, so there is no cycle to track."""

    TYPES: ClassVar[tuple[str, ...]] = ()  # the `type` values of a family
    sequence_number: int | None = None
    # Whatever a payload sends under this unlikely name is overwritten by `parse_wire`.
    raw: Any = msgspec.field(default=None, name=RAW_KEY)

    @property
    def type(self) -> str:
        return type(self).__struct_config__.tag  # type: ignore[return-value]


class _ItemScoped(WireEvent, kw_only=True):
    """Events addressed to one output item. `item_id` is missing in some hosted-tool
    events (shell_call_command.*) and `output_index` in llama.cpp's streams."""

    item_id: str | None = None
    output_index: int | None = None


# ---- response lifecycle --------------------------------------------------------------


class ResponseCreatedWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.created",)
    response: dict[str, Any]


class ResponseInProgressWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.in_progress", "response.queued")
    response: dict[str, Any] = {}


class ResponseCompletedWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.completed",)
    response: dict[str, Any]


class ResponseFailedWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.failed",)
    response: dict[str, Any] = {}


class ResponseIncompleteWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.incomplete",)
    response: dict[str, Any] = {}


class ErrorWire(WireEvent, kw_only=True):
    """The top-level `error` event. The spec puts code/message at the top; real
    streams and WebSocket frames nest them under `error` and may add `status`."""

    TYPES: ClassVar[tuple[str, ...]] = ("error",)
    # Any: an error is reported whatever the shapes of its fields (`error_from_event`
    # reads them defensively); a wrong type must never hide the server's message.
    code: Any = None
    message: Any = None
    param: Any = None
    status: Any = None
    error: Any = None


# ---- item lifecycle ------------------------------------------------------------------


class OutputItemAddedWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.output_item.added",)
    output_index: int | None = None
    item: dict[str, Any]


class OutputItemDoneWire(WireEvent, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.output_item.done",)
    output_index: int | None = None
    item: dict[str, Any]


class ContentPartWire(_ItemScoped, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.content_part.added", "response.content_part.done")
    content_index: int | None = None
    part: dict[str, Any] = {}


class SummaryPartWire(_ItemScoped, kw_only=True):
    TYPES: ClassVar[tuple[str, ...]] = ("response.reasoning_summary_part.added",
                                        "response.reasoning_summary_part.done")
    summary_index: int | None = None
    part: dict[str, Any] = {}


# ---- deltas ----------------------------------------------------------------------------


class TextDeltaWire(_ItemScoped, kw_only=True):
    """Every delta whose payload is a string, one family for all kinds (the hot path)."""

    TYPES: ClassVar[tuple[str, ...]] = (
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
    )
    delta: str
    content_index: int | None = None
    summary_index: int | None = None
    command_index: int | None = None


class ObjectDeltaWire(_ItemScoped, kw_only=True):
    """Deltas whose payload is an object (hosted shell output: {"stdout": ...})."""

    TYPES: ClassVar[tuple[str, ...]] = ("response.shell_call_output_content.delta",)
    delta: dict[str, Any] | str
    command_index: int | None = None


class TextDoneWire(_ItemScoped, kw_only=True):
    """`*.done` for the string deltas: the finished text under a kind-specific name."""

    TYPES: ClassVar[tuple[str, ...]] = (
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
    )
    content_index: int | None = None
    summary_index: int | None = None
    text: str | None = None
    refusal: str | None = None
    arguments: str | None = None
    input: str | None = None
    code: str | None = None
    command: str | None = None
    diff: str | None = None


class ItemProgressWire(_ItemScoped, kw_only=True):
    """Status and side-channel events of an item: hosted tools' in_progress/searching/
    completed, annotations, partial images."""

    TYPES: ClassVar[tuple[str, ...]] = (
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
    )


class UnknownWire(WireEvent, kw_only=True):
    """An event type this client does not know: traced and ignored. Its `type` is what
    was sent (an instance attribute, not the tag)."""

    TYPES: ClassVar[tuple[str, ...]] = ()
    sent_type: str = ""

    @property
    def type(self) -> str:
        return self.sent_type


FAMILIES: tuple[type[WireEvent], ...] = (
    TextDeltaWire,  # first: >95% of a real stream
    ResponseCreatedWire, ResponseInProgressWire, ResponseCompletedWire, ResponseFailedWire, ResponseIncompleteWire,
    ErrorWire, OutputItemAddedWire, OutputItemDoneWire, ContentPartWire, SummaryPartWire, ObjectDeltaWire,
    TextDoneWire, ItemProgressWire,
)


def _tagged(family: type[WireEvent], tag: str) -> type[WireEvent]:
    # One subclass per `type` value: msgspec dispatches a tagged union on one tag per class.
    name = family.__name__.removesuffix("Wire") + "_" + tag.removeprefix("response.").replace(".", "_")
    cls = cast(type[WireEvent], msgspec.defstruct(name, [], bases=(family,), tag=tag, kw_only=True))
    cls.__module__ = __name__
    return cls


BY_TYPE: dict[str, type[WireEvent]] = {t: _tagged(f, t) for f in FAMILIES for t in f.TYPES}
KNOWN_TYPES: frozenset[str] = frozenset(BY_TYPE)
DECODE = msgspec.json.Decoder(Union[tuple(BY_TYPE.values())]).decode  # noqa: UP007 - a runtime union of classes
# A request body holds the whole history, so its encoding grows with the chat: json.dumps
# took 9 ms a request at 240 turns of a soak, msgspec 1 ms (UTF-8 kept as is).
ENCODE_BODY = msgspec.json.Encoder().encode
_ANY = msgspec.json.Decoder().decode


def parse_wire(data: str | bytes) -> WireEvent:
    """Parse one SSE data payload / WebSocket frame.

    Returns a known wire event, or `UnknownWire` for a well-formed event of a type we
    do not know. Raises `MalformedEventError` for text that is not a JSON event or a
    known event that lacks a required field.
    """
    try:
        event: WireEvent = DECODE(data)
    except msgspec.DecodeError:  # ValidationError too: a field of the wrong type
        event = parse_slow(data)
    event.raw = data
    return event


def _declared(event: WireEvent) -> dict[str, str]:
    """JSON name -> attribute of the fields the event's class declares (not `raw`)."""
    return {k: a for k, a in zip(event.__struct_encode_fields__, event.__struct_fields__, strict=True)
            if k != RAW_KEY}


def extra_fields(event: WireEvent) -> dict[str, Any]:
    """The fields the server sent that the event's class does not declare."""
    known = _declared(event)
    return {k: v for k, v in _sent(event).items() if k not in known and k != "type"}


def as_sent(event: WireEvent) -> dict[str, Any]:
    """The event as the server sent it: the declared fields as decoded, the rest as sent."""
    known = _declared(event)
    return {k: (getattr(event, known[k]) if k in known else v) for k, v in _sent(event).items()}


def _sent(event: WireEvent) -> dict[str, Any]:
    raw = event.raw
    if raw is None:
        return {}
    try:
        sent = _ANY(raw)
    except msgspec.DecodeError:
        sent = json.loads(raw)  # JSON the fast parser refuses (NaN, Infinity): read as the slow path did
    return sent if isinstance(sent, dict) else {}


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
# msgspec names the bad field in its message: "Expected `int | null`, got `str` - at `$.output_index`".
_AT_FIELD = re.compile(r" - at `\$\.([A-Za-z0-9_]+)")
_WARNED: set[tuple[str, ...]] = set()


def parse_slow(data: str | bytes) -> WireEvent:
    try:
        obj = json.loads(data)  # stdlib: also reads NaN/Infinity, as the previous parser did
    except ValueError:
        raise MalformedEventError(f"event data is not JSON: {_preview(data)}") from None
    if isinstance(obj, dict) and "type" not in obj and "error" in obj:
        # llama.cpp's bare error frame: `data: {"error": {...}}` with no type.
        return msgspec.convert({"type": "error", "error": obj["error"]}, BY_TYPE["error"])
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise MalformedEventError(f"event without a string 'type': {_preview(data)}") from None
    etype: str = obj["type"]
    cls = BY_TYPE.get(etype)
    if cls is None:
        log.debug("ignoring unknown event type %r", etype)
        return UnknownWire(sent_type=etype)
    dropped: list[str] = []
    for _ in range(len(obj) + 1):
        try:
            event: WireEvent = msgspec.convert(obj, cls)
        except msgspec.ValidationError as exc:
            error = str(exc)
        else:
            if dropped and (etype, *dropped) not in _WARNED:
                _WARNED.add((etype, *dropped))  # once each: a broken server repeats itself
                log.warning("%s: ignored display-only field(s) of the wrong type: %s", etype, ", ".join(dropped))
            return event
        match = _AT_FIELD.search(error)
        name = match.group(1) if match else None
        droppable = name in _DISPLAY_ONLY or (name == "response" and etype in _DROPPABLE_RESPONSE)
        if name is None or not droppable or name not in obj:
            raise MalformedEventError(f"{etype}: bad field {name or '?'!r}: {error.split(' - at ')[0]}") from None
        del obj[name]
        dropped.append(name)
    raise MalformedEventError(f"{etype}: bad fields") from None


def _preview(data: str | bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text[:limit] + ("…" if len(text) > limit else ""))
