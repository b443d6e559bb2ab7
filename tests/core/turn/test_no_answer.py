"""Which responses gave no answer: reasoning and nothing that answers."""

from __future__ import annotations

from helpers.mock_api import serving, settings
from helpers.streams import call, message, reasoning, simple_text_response
from helpers.think_streams import thinking_only

from rivulet.core.turn.bus import EventBus, TurnCompleted
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.no_answer import NO_ANSWER, ended_in_reasoning


def test_only_reasoning_or_a_blank_message_is_no_answer():
    thought = reasoning("rs_1", "thinking")
    assert ended_in_reasoning([thought])
    assert ended_in_reasoning([thought, message("m1", "  \n")])
    assert not ended_in_reasoning([thought, message("m1", "Hi.")])
    assert not ended_in_reasoning([thought, call("fc1", "c1", "date", "{}")])
    assert not ended_in_reasoning([])  # nothing at all is another matter (and no Thought to show)
    assert not ended_in_reasoning([{"type": "web_search_call", "id": "ws1", "status": "completed"}, thought])


async def test_the_turn_says_it_in_its_result_and_on_the_bus():
    bus = EventBus()
    seen: list[TurnCompleted] = []
    bus.subscribe(seen.append, TurnCompleted)
    result = await Conversation(settings(), serving(thinking_only()), bus).run_turn("haiku")
    await bus.drain()
    assert result.no_answer == NO_ANSWER and result.last_message is None
    assert seen[0].no_answer == NO_ANSWER
    answered = await Conversation(settings(), serving(simple_text_response("Hi."))).run_turn("hi")
    assert answered.no_answer is None
