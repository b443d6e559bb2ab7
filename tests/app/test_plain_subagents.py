"""Issue 41 in plain mode: a subagent is a line when it starts, one per tool call it makes
and one when it ends with its status; its deltas print nothing (they stream in no pane)."""

from __future__ import annotations

import io

from rivulet.app.plain.printer import PlainPrinter
from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.turn.bus import ItemCompleted, ItemDelta


def test_one_line_per_subagent_event_that_matters():
    out = io.StringIO()
    printer = PlainPrinter(out)
    call = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"command": "make\\u001b[2J"}'}
    for event in (SubagentStarted("sa-1", "call_a", "tests", "run the\ntests"),
                  SubagentEvent("sa-1", "call_a", ItemDelta("m1", "output_text", "streaming text")),
                  SubagentEvent("sa-1", "call_a", ItemCompleted(call, "c1")),
                  SubagentStarted("sa-2", "call_b", "agent 2", "read"),
                  SubagentEnded("sa-2", "call_b", "failed", None, "the server said no", None, None),
                  SubagentEnded("sa-1", "call_a", "completed", "ok", None, None, None)):
        printer(event)
    printer.flush()
    assert out.getvalue().splitlines() == [
        "agent 'tests' started: run the tests",
        "agent 'tests' → shell: make␛[2J",  # the escape shown, never sent
        "agent 'agent 2' started: read",
        "agent 'agent 2' failed: the server said no",
        "agent 'tests' completed",
    ]
