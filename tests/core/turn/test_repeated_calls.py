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


def test_a_rerun_that_differs_only_in_its_timings_is_a_repeat():
    """The real llama-server run: passing tests rerun again and again, each output with its
    own wall time and pytest duration (issue 42's field run, /tmp/notes/llama.md)."""
    guard = RepeatGuard()
    run = {"type": "function_call", "name": "shell", "arguments": '{"command": "python3 -m pytest -q"}'}

    def output(wall: str, took: str, passed: int = 1) -> dict:
        return {"type": "function_call_output", "output": f"Exit code: 0\nWall time: {wall} seconds\nOutput:\n"
                                                          f".    [100%]\n{passed} passed in {took}s\n"}

    guard.check(run, output("0.9", "0.55"))
    guard.check(run, output("1.0", "0.62"))
    with pytest.raises(RepeatedCall):
        guard.check(run, output("0.8", "0.49"))
    other = RepeatGuard()  # a different count is a different output
    for n in range(1, 4):
        other.check(run, output("1.0", "0.5", passed=n))
