"""A response that thought but never answered.

A local model that never closes its `<think>` block (or is cut inside it while the
server still says `completed`) gives a response whose only output is reasoning: a
valid turn with nothing to print. Said out loud, so that exec does not end in silence
and the chat does not show a lone collapsed "Thought".
"""

from __future__ import annotations

from collections.abc import Iterable

from rivulet.core import items as it

NO_ANSWER = "no answer: the model's output ended inside its reasoning"


def ended_in_reasoning(committed: Iterable[it.Item]) -> bool:
    """Whether a response's committed items are reasoning and nothing else that
    answers: no message with text, no call, no other item (a blank message counts as
    none; servers that split `<think>` out may still send one)."""
    reasoned = False
    for item in committed:
        kind = it.item_type(item)
        if kind == "reasoning":
            reasoned = True
        elif kind != "message" or (it.message_text(item) or "").strip():
            return False
    return reasoned
