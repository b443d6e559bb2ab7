"""Builders for hand-made Responses streams (as wire JSON payloads)."""

from __future__ import annotations

import json
from typing import Any

from rivulet.core.protocol.mapping import map_wire
from rivulet.core.protocol.recordings import sse_body
from rivulet.core.protocol.wire import parse_wire


def ev(type_: str, **fields: Any) -> str:
    return json.dumps({"type": type_, **fields})


def created(rid: str = "resp_1") -> str:
    return ev("response.created", response={"id": rid, "status": "in_progress", "output": []})


def completed(output: list[dict], rid: str = "resp_1", usage: dict | None = None, **extra: Any) -> str:
    resp = {"id": rid, "status": "completed", "output": output,
            "usage": usage or {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8}, **extra}
    return ev("response.completed", response=resp)


def message(mid: str, text: str) -> dict:
    return {"id": mid, "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def message_events(mid: str, text: str, index: int = 0, chunks: int = 3) -> list[str]:
    step = max(1, len(text) // chunks)
    pieces = [text[i:i + step] for i in range(0, len(text), step)] or [""]
    return [
        ev("response.output_item.added", output_index=index,
           item={"id": mid, "type": "message", "role": "assistant", "status": "in_progress", "content": []}),
        ev("response.content_part.added", item_id=mid, output_index=index, content_index=0,
           part={"type": "output_text", "text": ""}),
        *[ev("response.output_text.delta", item_id=mid, output_index=index, content_index=0, delta=p)
          for p in pieces],
        ev("response.output_text.done", item_id=mid, output_index=index, content_index=0, text=text),
        ev("response.output_item.done", output_index=index, item=message(mid, text)),
    ]


def call(fid: str, call_id: str, name: str, args: str) -> dict:
    return {"id": fid, "type": "function_call", "status": "completed", "call_id": call_id, "name": name,
            "arguments": args}


def call_events(fid: str, call_id: str, name: str, args: str, index: int = 0) -> list[str]:
    return [
        ev("response.output_item.added", output_index=index,
           item={**call(fid, call_id, name, ""), "status": "in_progress"}),
        *[ev("response.function_call_arguments.delta", item_id=fid, output_index=index, delta=args[i:i + 4])
          for i in range(0, len(args), 4)],
        ev("response.function_call_arguments.done", item_id=fid, output_index=index, arguments=args),
        ev("response.output_item.done", output_index=index, item=call(fid, call_id, name, args)),
    ]


def reasoning(rid: str, summary: str, encrypted: str | None = None) -> dict:
    item = {"id": rid, "type": "reasoning", "summary": [{"type": "summary_text", "text": summary}]}
    if encrypted:
        item["encrypted_content"] = encrypted
    return item


def reasoning_events(rid: str, summary: str, index: int = 0, encrypted: str | None = None) -> list[str]:
    return [
        ev("response.output_item.added", output_index=index, item={"id": rid, "type": "reasoning", "summary": []}),
        ev("response.reasoning_summary_part.added", item_id=rid, output_index=index, summary_index=0,
           part={"type": "summary_text", "text": ""}),
        ev("response.reasoning_summary_text.delta", item_id=rid, output_index=index, summary_index=0,
           delta=summary),
        ev("response.reasoning_summary_text.done", item_id=rid, output_index=index, summary_index=0, text=summary),
        ev("response.output_item.done", output_index=index, item=reasoning(rid, summary, encrypted)),
    ]


def body(payloads: list[str]) -> bytes:
    return sse_body(payloads)


def simple_text_response(text: str, rid: str = "resp_1", mid: str = "msg_1", **extra: Any) -> bytes:
    return body([created(rid), *message_events(mid, text), completed([message(mid, text)], rid, **extra)])


def decode_event(data: str | bytes):
    """One payload mapped to its event, failures returned (not raised) so tests can
    look at them; None for an unknown (ignored) event type."""
    return map_wire(parse_wire(data))
