"""A frozen (old) entry draws its bar on every row, as a live entry's border does: a row
Rich wrapped too (seen with the real llama-server: the continuation rows had none), and
a folded subagent pane's lines are cut as the live pane cuts them, not wrapped."""

from __future__ import annotations

import json

from textual.geometry import Offset
from textual.selection import Selection
from textual.theme import BUILTIN_THEMES

from rivulet.widgets.frozen import render_lines
from rivulet.widgets.kind_views import entry_renderable
from rivulet.widgets.line_copy import copied_text
from rivulet.widgets.subagent_pane import folded_renderable

THEME = BUILTIN_THEMES["textual-dark"]
TASK = ("In stats.py the function mean() wrongly adds 1. Use apply_patch to change the line "
        "'return sum(values) / len(values) + 1' to 'return sum(values) / len(values)'.")


def rows(renderable, width: int = 60) -> list[str]:
    return [strip.text for strip in render_lines(renderable, width, THEME)]


def test_a_frozen_calls_wrapped_rows_each_have_the_bar():
    call = {"type": "function_call", "name": "spawn_agent", "call_id": "c1",
            "arguments": json.dumps({"task": TASK, "name": "apply_patch"})}
    output = {"type": "function_call_output", "call_id": "c1", "output": "The subagent failed: " + TASK}
    drawn = rows(entry_renderable(call, output, THEME))
    assert len(drawn) > 6  # the task and the output wrap at 60 columns
    assert all(row.startswith("▌ ") for row in drawn), drawn


def test_a_frozen_subagent_pane_keeps_one_barred_row_per_line():
    record = {"type": "subagent", "name": "apply_patch", "task": TASK, "status": "failed",
              "result": "stopped: the model repeated the same call 3 times (shell, the same arguments and the "
                        "same output); send a message to continue"}
    drawn = rows(folded_renderable(record, THEME))
    assert len(drawn) == 3 and all(row.startswith("▌ ") for row in drawn), drawn
    assert drawn[1].rstrip().endswith("…")  # cut at the edge, as the live pane's line


def test_a_frozen_prompt_wrapped_behind_its_bar_copies_as_it_was_written():
    """The copy joins the rows the wrap broke with a space: the bar on each row is no room
    for the text, so a break is judged against the width the text had (at some widths
    a wrapped row's break was taken for the prompt's own line end)."""
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]}
    wrong = []
    for width in range(40, 121):
        lines = render_lines(entry_renderable(item, None, THEME), width, THEME)
        copied = copied_text(lines, Selection(Offset(0, 0), Offset(width, len(lines))))
        if copied != TASK:
            wrong.append((width, copied))
    assert wrong == []
