"""A message item whose `content` is not a list of parts (nor the string shorthand) is
malformed: dropped (not shown, kept nor resent), noted as a deviation, and when it was the
response's only answer, the turn says so by name, not "ended inside its reasoning"."""

from __future__ import annotations

import pytest
from helpers.mock_api import serving, settings
from helpers.streams import body, completed, created, ev, message, reasoning, reasoning_events

from rivulet.core.turn.bus import EventBus, ItemCompleted, ItemDiscarded, ProtocolDeviation, TurnCompleted
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.no_answer import NO_ANSWER, why_no_answer


def _stream(content, with_reasoning: bool = True) -> bytes:
    bad = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": content}
    thought = [*reasoning_events("rs_1", "thinking")] if with_reasoning else []
    index = 1 if with_reasoning else 0
    return body([created(), *thought,
                 ev("response.output_item.added", output_index=index, item={**bad, "content": []}),
                 ev("response.output_item.done", output_index=index, item=bad),
                 completed([*([reasoning("rs_1", "thinking")] if with_reasoning else []), bad])])


@pytest.mark.parametrize(("content", "said"), [
    ({"type": "output_text", "text": "hi"}, "an object"), (None, "null"), (5, "a number"), (True, "a boolean"),
])
async def test_the_turn_names_the_dropped_message(content, said):
    bus = EventBus()
    seen: list = []
    bus.subscribe(seen.append)
    conv = Conversation(settings(), serving(_stream(content)), bus)
    result = await conv.run_turn("hi")
    await bus.drain()
    expected = f"no answer: the server's message msg_1 was malformed (its 'content' is {said}, not a list) " \
               "and was dropped"
    assert result.no_answer == expected and result.no_answer != NO_ANSWER
    assert [e.no_answer for e in seen if isinstance(e, TurnCompleted)] == [expected]
    # Not kept (so not resent), its live pane taken down, and the deviation said once.
    assert [i.get("type") for i in conv.history] == ["message", "reasoning"]
    assert not any(isinstance(e, ItemCompleted) and e.item_id == "msg_1" for e in seen)
    assert any(isinstance(e, ItemDiscarded) and e.item_id == "msg_1" for e in seen)
    notes = [e for e in seen if isinstance(e, ProtocolDeviation) and e.rule == "malformed_item"]
    assert len(notes) == 1 and "msg_1" in notes[0].detail and "dropped" in notes[0].detail


async def test_a_malformed_message_alone_is_no_answer_too():
    # Nothing else in the response: before, the turn ended in silence.
    result = await Conversation(settings(), serving(_stream({"text": "hi"}, with_reasoning=False))).run_turn("hi")
    assert result.no_answer is not None and "msg_1 was malformed" in result.no_answer


def test_an_answer_beside_a_dropped_item_is_an_answer():
    answered = [reasoning("rs_1", "thinking"), message("msg_2", "Hi.")]
    assert why_no_answer(answered, ["the server's message msg_1 was malformed"]) is None
    assert why_no_answer([reasoning("rs_1", "thinking")], []) == NO_ANSWER
    assert why_no_answer([], []) is None


async def test_the_string_shorthand_is_kept_as_an_answer():
    result = await Conversation(settings(), serving(_stream("Hello."))).run_turn("hi")
    assert result.no_answer is None and result.last_message == "Hello."
