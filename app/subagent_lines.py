"""Subagents (issue 41) as lines, for the line front ends (plain mode, exec without
--json): one when a subagent starts, one per tool call it makes, one when it ends, with
its status; never its deltas. Every piece of text in them is the model's: one row,
sanitised and cut."""

from __future__ import annotations

import json

from rivulet.core import items as it
from rivulet.core.sanitize import one_row
from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.turn.bus import BusEvent, ItemCompleted

WIDTH = 100  # characters of a task or a command shown


def _cut(text: str) -> str:
    row = one_row(" ".join(text.split()))
    return row if len(row) <= WIDTH else row[:WIDTH - 1] + "…"


def call_summary(item: it.Item) -> str:
    """`shell: ls -la`, `apply_patch`, `lookup: {"q": 1}`: a call in one row."""
    name = str(item.get("name") or it.item_type(item))
    if name == "apply_patch":
        return name
    return f"{name}: {_cut(shown_arguments(item))}"


def shown_arguments(item: it.Item) -> str:
    """A function call's arguments as a line front end shows them: a shell call's command
    (Codex's argv joined by JSON), else the arguments as sent."""
    args = item.get("arguments")
    try:
        parsed = json.loads(args) if isinstance(args, str) else None
    except ValueError:
        parsed = None
    shown = parsed.get("command") if isinstance(parsed, dict) and "command" in parsed else args or ""
    return shown if isinstance(shown, str) else json.dumps(shown)


class SubagentLines:
    """Each subagent event that matters as a line (None for the others); knows the names."""

    TYPES = (SubagentStarted, SubagentEvent, SubagentEnded)

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def __call__(self, event: BusEvent) -> str | None:
        if isinstance(event, SubagentStarted):
            self._names[event.subagent] = event.name
            return f"{self._who(event.subagent)} started: {_cut(event.task)}"
        if isinstance(event, SubagentEvent):
            inner = event.event
            if isinstance(inner, ItemCompleted) and it.is_call(inner.item):
                return f"{self._who(event.subagent)} → {call_summary(inner.item)}"
            return None
        if isinstance(event, SubagentEnded):
            status = event.status
            if event.status == "failed" and event.error:
                status = f"failed: {_cut(event.error)}"
            return f"{self._who(event.subagent)} {status}"
        return None

    def _who(self, subagent: str) -> str:
        return f"agent {one_row(self._names.get(subagent, subagent))!r}"
