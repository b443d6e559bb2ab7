"""Wire event -> transport-neutral `ResponseEvent`. The one mapping both transports use."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from rivulet.core.errors import ApiError, ResponseFailed, RivuletError, classify, one_line
from rivulet.core.protocol import wire as w
from rivulet.core.protocol.events import (
    Completed,
    Created,
    Delta,
    DeltaDone,
    DeltaKind,
    Failure,
    ItemProgress,
    OutputItemAdded,
    OutputItemDone,
    PartAdded,
    PartDone,
    PartKind,
    ResponseEvent,
    ResponseProgress,
)
from rivulet.core.protocol.unparsed_call import unparsed_tool_call

log = logging.getLogger(__name__)

# "response.output_text.delta" -> DeltaKind.OUTPUT_TEXT, computed once.
_DELTA_KIND: dict[str, DeltaKind] = {}
_DONE_KIND: dict[str, DeltaKind] = {}
for _kind in DeltaKind:
    _DELTA_KIND[f"response.{_kind.value}.delta"] = _kind
    _DONE_KIND[f"response.{_kind.value}.done"] = _kind

# Which field of a `*.done` event holds the finished text, per kind.
_DONE_FIELD: dict[DeltaKind, str] = {
    DeltaKind.OUTPUT_TEXT: "text",
    DeltaKind.REFUSAL: "refusal",
    DeltaKind.REASONING_SUMMARY: "text",
    DeltaKind.REASONING_TEXT: "text",
    DeltaKind.FUNCTION_ARGUMENTS: "arguments",
    DeltaKind.CUSTOM_TOOL_INPUT: "input",
    DeltaKind.CODE: "code",
    DeltaKind.SHELL_COMMAND: "command",
    DeltaKind.PATCH_DIFF: "diff",
    DeltaKind.MCP_ARGUMENTS: "arguments",
    DeltaKind.SHELL_OUTPUT: "text",
}


def _index(ev: Any) -> int | None:
    for name in ("content_index", "summary_index", "command_index"):
        value = getattr(ev, name, None)
        if isinstance(value, int):
            return value
    return None


# Each string-delta class (one per `type`) -> its kind: the hot path is one dict lookup.
TEXT_DELTA_KIND: dict[type[w.WireEvent], DeltaKind] = {
    w.BY_TYPE[t]: _DELTA_KIND[t] for t in w.TextDeltaWire.TYPES
}


def map_wire(ev: w.WireEvent) -> ResponseEvent | None:
    # The hot path first: string deltas are >95% of a real stream.
    kind = TEXT_DELTA_KIND.get(type(ev))
    if kind is not None:
        d: w.TextDeltaWire = ev  # type: ignore[assignment]  # the class says so (no cast() call)
        index = d.content_index
        if index is None:
            index = d.summary_index if d.summary_index is not None else d.command_index
        return Delta(kind, d.delta, d.item_id, d.output_index, index)
    mapper = _MAPPER_OF.get(type(ev))
    if mapper is not None:
        return mapper(ev)
    if not isinstance(ev, w.UnknownWire):
        log.debug("no mapping for wire event %r", getattr(ev, "type", ev))
    return None


def _part(ev: w.ContentPartWire | w.SummaryPartWire) -> PartAdded | PartDone:
    kind, cls = _PART_OF[type(ev)]
    index = ev.content_index if type(ev).__base__ is w.ContentPartWire else ev.summary_index  # type: ignore[union-attr]
    return cls(kind, ev.item_id, ev.output_index, index, ev.part)


def _text_done(ev: w.TextDoneWire) -> PartAdded | DeltaDone:
    if ev.type == "response.shell_call_command.added":
        return PartAdded(PartKind.COMMAND, ev.item_id, ev.output_index, _index(ev), {"command": ev.command or ""})
    kind = _DONE_KIND[ev.type]
    return DeltaDone(kind, getattr(ev, _DONE_FIELD[kind], None), ev.item_id, ev.output_index, _index(ev))


def _item_progress(ev: w.ItemProgressWire) -> ItemProgress:
    data = w.as_sent(ev)
    data.pop("type", None)
    return ItemProgress(ev.type, ev.item_id, ev.output_index, data)


# One function per family, found by the event's class: no chain of isinstance checks.
_MAPPERS: dict[type[w.WireEvent], Callable[[Any], ResponseEvent | None]] = {
    w.OutputItemAddedWire: lambda ev: OutputItemAdded(ev.item, ev.output_index),
    w.OutputItemDoneWire: lambda ev: OutputItemDone(ev.item, ev.output_index),
    w.ResponseCreatedWire: lambda ev: Created(ev.response.get("id"), ev.response),
    w.ResponseInProgressWire: lambda ev: ResponseProgress(ev.type.removeprefix("response."), ev.response),
    w.ResponseCompletedWire: lambda ev: _completed(ev),
    w.ContentPartWire: _part,
    w.SummaryPartWire: _part,
    w.TextDoneWire: _text_done,
    w.ObjectDeltaWire: lambda ev: Delta(DeltaKind.SHELL_OUTPUT, _object_delta_text(ev.delta), ev.item_id,
                                        ev.output_index, ev.command_index),
    w.ItemProgressWire: _item_progress,
    w.ResponseFailedWire: lambda ev: Failure(failure_from_response(ev.response), ev.response),
    w.ResponseIncompleteWire: lambda ev: _incomplete(ev.response),
    w.ErrorWire: lambda ev: Failure(error_from_event(ev)),
}
_PART_OF: dict[type[w.WireEvent], tuple[PartKind, type[PartAdded] | type[PartDone]]] = {
    w.BY_TYPE[t]: (PartKind.CONTENT if family is w.ContentPartWire else PartKind.SUMMARY,
                   PartAdded if t.endswith(".added") else PartDone)
    for family in (w.ContentPartWire, w.SummaryPartWire) for t in family.TYPES
}
# Each tagged class (one per `type`) -> its family's function.
_MAPPER_OF = {cls: _MAPPERS[family] for family in w.FAMILIES if family in _MAPPERS
              for cls in (w.BY_TYPE[t] for t in family.TYPES)}
assert set(_MAPPERS) | {w.TextDeltaWire} == set(w.FAMILIES), "a wire family without a mapping"


def _completed(ev: w.ResponseCompletedWire) -> Completed:
    resp = ev.response
    end_turn = resp.get("end_turn")
    extra = w.extra_fields(ev)  # once per response: end_turn and llama.cpp's timings may sit beside it
    if end_turn is None and isinstance(extra.get("end_turn"), bool):
        end_turn = extra["end_turn"]
    timings = extra.get("timings")
    return Completed(_str(resp.get("id")), clean_usage(resp.get("usage")),
                     end_turn if isinstance(end_turn, bool) else None, resp,
                     timings=timings if isinstance(timings, dict) else None)


def _incomplete(resp: dict[str, Any]) -> Completed:
    details = resp.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return Completed(_str(resp.get("id")), clean_usage(resp.get("usage")), None, resp,
                     incomplete=str(reason) if reason else "unknown")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def clean_usage(usage: Any) -> dict[str, Any] | None:
    """Usage is display-only: numbers (and nested objects of numbers) are kept, any
    field of another type is treated as missing."""
    if not isinstance(usage, dict):
        return None
    out: dict[str, Any] = {}
    for key, value in usage.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            out[key] = value
        elif isinstance(value, dict):
            nested = clean_usage(value)
            if nested:
                out[key] = nested
    return out or None


def _object_delta_text(delta: dict[str, Any] | str) -> str:
    if isinstance(delta, str):
        return delta
    return "".join(str(v) for k, v in delta.items() if k in ("stdout", "stderr", "output", "text") and v)


def failure_from_response(resp: dict[str, Any]) -> ApiError:
    err = resp.get("error") or {}
    if not isinstance(err, dict):
        err = {"message": str(err)}
    message = one_line(str(err.get("message") or "the response failed"))
    code = err.get("code")
    if code is None:
        return ResponseFailed(message)
    etype = err.get("type")
    return classify(code=str(code), message=message, error_type=None if etype is None else str(etype))


def error_from_event(ev: w.ErrorWire) -> RivuletError:
    """An `error` event, the spec's flat shape or nested under `error` (WebSocket
    frames, llama.cpp's bare `{"error": {...}}` frame), fields of any type."""
    nested = ev.error if isinstance(ev.error, dict) else {}
    if isinstance(ev.error, str) and ev.message is None:
        nested = {"message": ev.error}
    code = nested.get("code") if nested.get("code") is not None else ev.code
    etype = nested.get("type")
    message = one_line(str(nested.get("message") or ev.message or code or "the server reported an error"))
    status = ev.status if ev.status is not None else nested.get("status")
    if not isinstance(status, int) and isinstance(code, int) and 400 <= code <= 599:
        status = code  # llama.cpp puts the HTTP status in `code`
    if (unparsed := unparsed_tool_call(message)) is not None:
        return unparsed  # llama.cpp's grammar jargon: the model's call did not parse
    retry_header = None
    headers = w.extra_fields(ev).get("headers")
    if isinstance(headers, dict):
        retry_header = headers.get("retry-after") or headers.get("Retry-After")
    return classify(code=None if code is None else str(code), message=message,
                    status=status if isinstance(status, int) and not isinstance(status, bool) else None,
                    error_type=None if etype is None else str(etype),
                    retry_after_header=retry_header if isinstance(retry_header, str) else None)
