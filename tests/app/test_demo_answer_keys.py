"""The demo's answer after its patch points at what the user can do next in either front
end: the full-screen chat and plain mode share the slash commands, but ctrl+t and ctrl+o
are the full-screen chat's keys alone, so it names commands that plain mode runs."""

from __future__ import annotations

import asyncio
import re

from rivulet.app.commands.registry import BUILTIN
from rivulet.app.commands.results import Open
from rivulet.app.demo_server import script_for


def _answer_after_the_patch() -> str:
    call = {"type": "custom_tool_call", "call_id": "call_1", "name": "apply_patch", "input": "*** Begin Patch"}
    output = {"type": "custom_tool_call_output", "call_id": "call_1", "output": "Done: added rivulet-demo.txt"}
    events = script_for({"input": [{"type": "message", "role": "user", "content": "make a file"}, call, output]})
    return next(e["text"] for e in events if e["type"] == "response.output_text.done")


def test_the_answer_after_the_patch_names_no_key_plain_mode_lacks():
    text = _answer_after_the_patch()
    assert not re.search(r"\bctrl\+", text, re.I), text


def test_each_command_it_names_is_one_plain_mode_runs():
    text = _answer_after_the_patch()
    named = set(re.findall(r"\*\*/(\w+)\*\*", text))
    assert named == {"diff", "undo"}
    by_word = {c.slash: c for c in BUILTIN if c.slash}
    assert named <= set(by_word)
    # /diff opens the turn's diff, which plain mode prints (app/plain/commands.py), not one of
    # the full-screen chat's views that plain mode can only name; /undo asks on plain's prompt.
    diff = asyncio.run(by_word["diff"].run(None, ""))  # type: ignore[arg-type]
    assert isinstance(diff, Open) and diff.view == "turn_diff"
