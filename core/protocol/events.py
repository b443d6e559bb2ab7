"""Transport-neutral response events: what the state machine consumes.

SSE and the Responses WebSocket both map their payloads to exactly these (see
`mapping.py`). The vocabulary is small on purpose: one class per role in the item
lifecycle, with the item kind as data, so the consumer is a single `match`.

These are msgspec structs (plain slotted objects whose `__init__` is C): one is built per
delta from an already-decoded wire event, and a Python-level `__init__` cost as much as
decoding the payload.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

from rivulet.core.errors import RivuletError


class DeltaKind(StrEnum):
    """What a delta's text belongs to. Values are the wire type's middle part."""

    OUTPUT_TEXT = "output_text"
    REFUSAL = "refusal"
    REASONING_SUMMARY = "reasoning_summary_text"
    REASONING_TEXT = "reasoning_text"
    FUNCTION_ARGUMENTS = "function_call_arguments"
    CUSTOM_TOOL_INPUT = "custom_tool_call_input"
    CODE = "code_interpreter_call_code"
    SHELL_COMMAND = "shell_call_command"
    PATCH_DIFF = "apply_patch_call_operation_diff"
    MCP_ARGUMENTS = "mcp_call_arguments"
    SHELL_OUTPUT = "shell_call_output_content"


class PartKind(StrEnum):
    CONTENT = "content"  # response.content_part.*
    SUMMARY = "summary"  # response.reasoning_summary_part.*
    COMMAND = "command"  # response.shell_call_command.added


class Created(msgspec.Struct):
    response_id: str | None
    response: dict[str, Any]


class ResponseProgress(msgspec.Struct):
    """response.in_progress / response.queued: informational."""

    status: str
    response: dict[str, Any]


class OutputItemAdded(msgspec.Struct):
    item: dict[str, Any]
    output_index: int | None = None


class Delta(msgspec.Struct, gc=False):  # only strings and ints: no cycles to track
    kind: DeltaKind
    delta: str
    item_id: str | None = None
    output_index: int | None = None
    # content_index, summary_index or command_index, whichever the kind uses.
    index: int | None = None


class PartAdded(msgspec.Struct):
    """A new content part / reasoning summary part begins inside the active item."""

    kind: PartKind
    item_id: str | None = None
    output_index: int | None = None
    index: int | None = None
    part: dict[str, Any] = msgspec.field(default_factory=dict)


class PartDone(msgspec.Struct):
    kind: PartKind
    item_id: str | None = None
    output_index: int | None = None
    index: int | None = None
    part: dict[str, Any] = msgspec.field(default_factory=dict)


class DeltaDone(msgspec.Struct):
    """The finished text of one delta channel (e.g. response.output_text.done)."""

    kind: DeltaKind
    text: str | None
    item_id: str | None = None
    output_index: int | None = None
    index: int | None = None


class ItemProgress(msgspec.Struct):
    """Status / side-channel events of an item (hosted tool progress, annotations)."""

    event_type: str
    item_id: str | None
    output_index: int | None
    data: dict[str, Any]


class OutputItemDone(msgspec.Struct):
    item: dict[str, Any]
    output_index: int | None = None


class Completed(msgspec.Struct):
    """response.completed, or response.incomplete (then `incomplete` says why the
    server cut it: max_output_tokens, content_filter). Both end the response."""

    response_id: str | None
    usage: dict[str, Any] | None
    end_turn: bool | None
    response: dict[str, Any]
    incomplete: str | None = None
    timings: dict[str, Any] | None = None  # llama.cpp's own measures, sent beside the response


class Failure(msgspec.Struct):
    """response.failed / response.incomplete / error, already classified. The stream
    layer raises `error`: failures never reach the state machine's success path."""

    error: RivuletError
    response: dict[str, Any] | None = None


ResponseEvent = (
    Created
    | ResponseProgress
    | OutputItemAdded
    | Delta
    | PartAdded
    | PartDone
    | DeltaDone
    | ItemProgress
    | OutputItemDone
    | Completed
    | Failure
)
