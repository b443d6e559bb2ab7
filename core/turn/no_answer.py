"""A response that completed without an answer, and why.

A local model that never closes its `<think>` block (or is cut inside it while the
server still says `completed`) gives a response whose only output is reasoning: a
valid turn with nothing to print. A server may also send its message malformed (a
`content` that is not a list: the state machine drops it). Either is said out loud,
as what happened, so that exec does not end in silence and the chat does not show a
lone collapsed "Thought".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rivulet.core import items as it

NO_ANSWER = "no answer: the model's output ended inside its reasoning"


def _answers(item: it.Item) -> bool:
    """Anything but reasoning and a blank message answers (text, a call, a hosted item);
    servers that split `<think>` out may still send a blank message."""
    kind = it.item_type(item)
    return kind != "reasoning" and (kind != "message" or bool((it.message_text(item) or "").strip()))


def ended_in_reasoning(committed: Iterable[it.Item]) -> bool:
    """Whether a response's committed items are reasoning and nothing else that
    answers (a blank message counts as none)."""
    reasoned = False
    for item in committed:
        if _answers(item):
            return False
        reasoned = reasoned or it.item_type(item) == "reasoning"
    return reasoned


def why_no_answer(committed: Sequence[it.Item], dropped: Sequence[str]) -> str | None:
    """Why a completed response gave no answer (None: it answered, or had nothing at
    all). A malformed item dropped is named first: it may well have been the answer."""
    if any(_answers(item) for item in committed):
        return None
    if dropped:
        return f"no answer: {dropped[0]}"
    return NO_ANSWER if ended_in_reasoning(committed) else None
