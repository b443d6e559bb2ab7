"""A small model that resends the same failing call (issue 42.4): the third identical
call (same tool, same arguments, same output) stops the turn with one line; the user can
continue. A call that differs in its arguments or its output is not a repeat. The undo
question names each distinct command once."""

from __future__ import annotations

import pytest
from helpers.mock_api import serving, settings
from helpers.streams import body, call, call_events, completed, created, simple_text_response

from rivulet.core.checkpoints.actions import describe
from rivulet.core.checkpoints.restore import Plan
from rivulet.core.turn.bus import ErrorOccurred, EventBus
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.repeat_guard import RepeatedCall, RepeatGuard

ARGS = '{"path": "notes.txt", "content": "x"}'


def a_call(n: int) -> bytes:
    # Each response has its own ids: only the tool, the arguments and the output are the same.
    return body([created(f"resp_{n}"), *call_events(f"fc_{n}", f"call_{n}", "create_file", ARGS),
                 completed([call(f"fc_{n}", f"call_{n}", "create_file", ARGS)], rid=f"resp_{n}")])


async def test_the_third_identical_failing_call_stops_the_turn_with_one_line():
    requests: list = []
    bus = EventBus()
    errors: list[ErrorOccurred] = []
    bus.subscribe(errors.append, ErrorOccurred)
    conv = Conversation(settings(model="m", max_follow_ups=16),
                        serving(*[a_call(n) for n in range(10)], requests=requests), bus)
    with pytest.raises(RepeatedCall) as raised:
        await conv.run_turn("make notes.txt")
    await bus.drain()
    assert len(requests) == 3  # not 16
    message = raised.value.message
    assert "\n" not in message and "repeated the same call 3 times" in message and "create_file" in message
    assert [type(e.error) for e in errors] == [RepeatedCall]
    # The user can continue: the next turn goes out with every call answered.
    conv.transport = serving(simple_text_response("ok"), requests=requests)
    assert (await conv.run_turn("use another name")).last_message == "ok"


def test_a_call_that_differs_in_arguments_or_output_is_not_a_repeat():
    guard = RepeatGuard()
    for n in range(5):
        guard.check({"type": "function_call", "name": "shell", "arguments": f'{{"n": {n}}}'},
                    {"type": "function_call_output", "output": "failed"})
        guard.check({"type": "function_call", "name": "shell", "arguments": "{}"},
                    {"type": "function_call_output", "output": f"line {n}"})


def test_the_undo_question_names_each_distinct_command_once():
    lines = describe(Plan("undo", [], commands=["ls workspace"] * 9 + ["make"]))
    ran = [line for line in lines if line.startswith("Ran ")]
    assert ran == [line for line in ran if "cannot be undone" in line] and len(ran) == 2
    assert ran[0].startswith("Ran `ls workspace` (9 times): ") and ran[1].startswith("Ran `make`: ")
