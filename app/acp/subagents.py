"""Subagents (issue 41) as the editor sees them: each `spawn_agent` call is one tool call
(kind `think`, title "agent <name>: <task>"), updated as the subagent runs: its task,
then one line per tool call it makes (with how the call ended), then its answer or why
it failed. Its end status is the subagent's (`completed`, or `failed` when it failed or
was cancelled), final once the parent's call output is committed.

A question a subagent asks (`session/request_permission`) is its own tool call in the
editor, under the subagent's call id, its title saying which subagent asks; it ends when
the subagent commits that call's output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rivulet.app.acp import tool_calls as tc
from rivulet.app.subagent_lines import call_summary
from rivulet.core import items as it
from rivulet.core.sanitize import one_row
from rivulet.core.subagents.events import SubagentEnded, SubagentStarted
from rivulet.core.subagents.tool import is_agent_call, read_call

if TYPE_CHECKING:
    from acp.schema import ToolCallProgress

TASK_SHOWN = 80  # characters of the task in the title


def title(name: str | None, task: str) -> str:
    """"agent tests: count the tests", one row, the task cut."""
    task = one_row(" ".join(task.split()))
    task = task if len(task) <= TASK_SHOWN else task[:TASK_SHOWN - 1] + "…"
    who = one_row(name) if name else "agent"
    return f"{who if who.startswith('agent') else f'agent {who}'}: {task}"


def call_title(item: it.Item) -> str | None:
    """A `spawn_agent` call's title, from its arguments (None for another call, or one that does not read)."""
    if not is_agent_call(item):
        return None
    args = read_call(item)
    return None if isinstance(args, str) else title(args.name, args.task)


def asks(name: str, what: str) -> str:
    """A permission question's title when a subagent asks."""
    return f"agent {one_row(name)!r} asks: {what}"


def add_line(lines: dict[str, str], item: it.Item) -> bool:
    """A subagent's committed item into its lines: a call is a line, its output says how
    it ended on that line; False for any other item."""
    if it.is_call(item):
        lines[it.call_id(item) or str(len(lines))] = f"→ {call_summary(item)}"
    elif it.is_output(item) and (it.call_id(item) or "") in lines:
        lines[it.call_id(item) or ""] += f" ({tc.output_status(item)})"
    else:
        return False
    return True


def saved_content(item: it.Item, items: list[it.Item], output_text: str | None) -> list[Any]:
    """A saved `spawn_agent` call's content (session/load): its task, its subagent's
    calls (the session's `subagent_item` records), its output."""
    args = read_call(item)
    lines: dict[str, str] = {}
    for saved in items:
        add_line(lines, saved)
    return [*tc.text_content(args if isinstance(args, str) else args.task), *tc.code_content("\n".join(lines.values())),
            *tc.text_content(output_text if output_text is not None else "(no result)")]


@dataclass
class RunningSubagent:
    """One subagent as its tool call shows it."""

    task: str
    calls: dict[str, str] = field(default_factory=dict)  # its call ids -> their lines, in order
    status: str | None = None  # once ended: completed or failed
    end: str = ""  # its answer, or why it has none


class SubagentCalls:
    """The subagents of one session, by the parent's call id."""

    def __init__(self) -> None:
        self._running: dict[str, RunningSubagent] = {}
        self.asked: set[str] = set()  # subagents' call ids asked about (each a tool call of its own)

    def started(self, event: SubagentStarted) -> ToolCallProgress:
        from acp import update_tool_call

        self._running[event.call_id] = RunningSubagent(event.task)
        return update_tool_call(event.call_id, title=title(event.name, event.task), kind="think",
                                status="in_progress", content=self._content(event.call_id))

    def item(self, call_id: str, item: it.Item) -> ToolCallProgress | None:
        """A subagent committed `item`: its call's line (a call, or how one ended)."""
        from acp import update_tool_call

        running = self._running.get(call_id)
        if running is None or not add_line(running.calls, item):
            return None
        return update_tool_call(call_id, status="in_progress", content=self._content(call_id))

    def asked_output(self, item: it.Item) -> ToolCallProgress | None:
        """A subagent's call that was asked about has its output: that question's tool call ends."""
        from acp import update_tool_call

        key = it.call_id(item) or ""
        if not it.is_output(item) or key not in self.asked:
            return None
        self.asked.discard(key)
        return update_tool_call(key, status=tc.output_status(item))  # type: ignore[arg-type]

    def ended(self, event: SubagentEnded) -> None:
        running = self._running.get(event.call_id)
        if running is not None:
            running.status = "completed" if event.status == "completed" else "failed"
            running.end = event.answer or (f"{event.status}: {event.error}" if event.error else event.status)

    def owns(self, call_id: str) -> bool:
        return call_id in self._running

    def discard(self, call_id: str) -> None:
        """The parent's call ended otherwise (the turn cancelled or failed)."""
        self._running.pop(call_id, None)

    def unanswered(self) -> list[str]:
        """The questions' tool calls whose call never got an output (the turn ended first)."""
        asked, self.asked = sorted(self.asked), set()
        return asked

    def final(self, call_id: str, output_text: str) -> tuple[str, list[Any]]:
        """The status and content of the parent's call once its output is committed."""
        running = self._running.pop(call_id)
        status = running.status or tc.agent_status(output_text)
        return status, self._content_of(running, running.end or output_text)

    def _content(self, call_id: str) -> list[Any]:
        return self._content_of(self._running[call_id], "")

    @staticmethod
    def _content_of(running: RunningSubagent, end: str) -> list[Any]:
        return [*tc.text_content(running.task), *tc.code_content("\n".join(running.calls.values())),
                *tc.text_content(end)]
