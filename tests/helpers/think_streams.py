"""Streams as llama.cpp sends them for a model that thinks (`<think>` split out into
a reasoning item with `reasoning_text` deltas), with no output_index: one that
answers after its reasoning, and one that never leaves it."""

from __future__ import annotations

from helpers.streams import body, completed, created, ev, message, message_events


def _reasoning_item(rid: str, text: str) -> dict:
    return {"id": rid, "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": text}]}


def thought_events(rid: str, text: str) -> list[str]:
    words = text.split(" ")
    return [
        ev("response.output_item.added", item={"id": rid, "type": "reasoning", "summary": [], "content": []}),
        *[ev("response.reasoning_text.delta", item_id=rid, delta=w + " ") for w in words],
        ev("response.reasoning_text.done", item_id=rid, text=text),
        ev("response.output_item.done", item=_reasoning_item(rid, text)),
    ]


def thinking_only(text: str = "The user wants a haiku. Let me count syllables: five, seven, five",
                  rid: str = "resp_think") -> bytes:
    """A completed response whose only item is reasoning (the model never closed `<think>`)."""
    return body([created(rid), *thought_events("rs_1", text), completed([_reasoning_item("rs_1", text)], rid)])


def thought_then_answer(thought: str, answer: str, rid: str = "resp_think") -> bytes:
    return body([created(rid), *thought_events("rs_1", thought), *message_events("msg_1", answer),
                 completed([_reasoning_item("rs_1", thought), message("msg_1", answer)], rid)])


def thinking_cut(text: str = "Let me think about the haiku: five syllables, then", rid: str = "resp_cut") -> bytes:
    """OpenAI's way: the output token limit is reached inside the reasoning, and the
    response ends `incomplete` with only the reasoning item."""
    return body([created(rid), *thought_events("rs_1", text),
                 ev("response.incomplete", response={"id": rid, "status": "incomplete",
                                                     "incomplete_details": {"reason": "max_output_tokens"},
                                                     "output": [_reasoning_item("rs_1", text)]})])
