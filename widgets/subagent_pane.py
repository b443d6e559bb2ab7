"""A subagent's pane in the transcript, under the call that spawned it (issue 41): its
header (name, task, status, tokens), its items as they stream (the live panes of
kind_views.py, the same as the conversation's own) and, once committed, one line each;
folded to the header and a one-line result when it ends. Click it (or Enter on it) for
its items in the inspector.

The pane is an entry of the transcript whose item is the client's own record of the
subagent (`record`, type "subagent", never sent): once folded, an old pane is frozen as
data like any entry, and drawn from that record (`folded_renderable`). A running pane
is never frozen (app/handlers/commits.py). Every string in it is model text: sanitised,
drawn as `Text`, never markup."""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.theme import Theme
from textual.widgets import Static

from rivulet.core.sanitize import sanitize, short_row

from .barred import Barred
from .entries import ToolCallEntry, TranscriptEntry
from .live import LiveMessage, LivePane
from .messages import OpenRawItem

Item = dict[str, Any]
SUBAGENT_TYPE = "subagent"  # the record's type (the transcript's own, never an API item)
KEY_PREFIX = "subagent-"  # the pane's entry key: KEY_PREFIX + the parent's call_id
DONE_LINES = 2  # committed items shown as lines while it runs (all of them: the inspector)
STATUS_WORDS = {"completed": "done", "failed": "failed", "cancelled": "cancelled", "running": "running"}


def pane_key(call_id: str) -> str:
    return KEY_PREFIX + call_id


ROW = 200  # characters of a task, a result or an activity line kept (the pane cuts at its edge)


def subagent_record(subagent: str, call_id: str, name: str, task: str) -> Item:
    """What the transcript keeps of a subagent: enough to draw it folded, after the pane."""
    return {"type": SUBAGENT_TYPE, "subagent": subagent, "call_id": call_id, "name": name, "task": task,
            "status": "running", "result": None, "tokens": 0}


def header_text(record: Item) -> Text:
    """`◆ agent 'tests' · running · 1,204 tokens`: its name, status and tokens."""
    status = str(record.get("status") or "running")
    tokens = int(record.get("tokens") or 0)
    style = {"failed": "bold red", "cancelled": "bold yellow", "completed": "bold green"}.get(status, "bold")
    out = Text.assemble(("◆ agent ", "bold"), (f"'{short_row(str(record.get('name') or ''), 60)}'", "bold"),
                        (" · ", ""), (STATUS_WORDS.get(status, short_row(status, 20)), style))
    if tokens:
        out.append(f" · {tokens:,} tokens")
    return out


def task_text(record: Item) -> Text:
    """The task in one line (cut at the pane's edge)."""
    return Text("task: " + short_row(str(record.get("task") or ""), ROW), no_wrap=True, overflow="ellipsis")


def result_text(record: Item) -> Text:
    """The folded pane's one line: its answer's first line, or why it failed."""
    result = str(record.get("result") or "")
    first = next((line for line in result.splitlines() if line.strip()), "")
    shown = short_row(first, ROW) if first else "(no answer)"
    style = "red" if record.get("status") == "failed" else ""
    return Text("→ " + shown, style=style, no_wrap=True, overflow="ellipsis")


def folded_renderable(record: Item, theme: Theme) -> RenderableType:
    """A folded pane as one renderable: how a frozen (old) one is drawn."""
    colour = theme.accent or theme.primary
    lines = [header_text(record), task_text(record), result_text(record)]
    return Group(*(Barred(line, colour) for line in lines))  # each line cut as the live pane cuts it


def record_text(record: Item) -> str:
    """What find (ctrl+f) looks through in a pane: its name, task and result."""
    return "\n".join(str(record.get(key) or "") for key in ("name", "task", "result"))


def item_line(item: Item) -> Text:
    """A committed item of the subagent as one line of its pane."""
    from .inspector import describe  # (the inspector's own one-line summary of an item)

    kind = {"message": "answer", "function_call": "call"}.get(str(item.get("type")), sanitize(str(item.get("type"))))
    return Text.assemble(("• ", "dim"), (kind, "bold dim"), (" " + describe(item), "dim"), no_wrap=True,
                         overflow="ellipsis")


class SubagentPane(TranscriptEntry):
    """One subagent, under its call: live while it runs, folded when it ends."""

    DEFAULT_CSS = """
    SubagentPane {
        height: auto;
        padding: 0 1;
        border-left: thick $accent;
    }
    SubagentPane .subagent-body { height: auto; }
    SubagentPane .subagent-done { color: $text-muted; height: auto; }
    SubagentPane .subagent-activity { color: $text-muted; text-style: italic; height: auto; }
    SubagentPane .live { max-height: 6; overflow-y: hidden; }
    SubagentPane .subagent-task { color: $text-muted; }
    /* One row each, cut with "…" as the frozen pane's (Text's own no_wrap is not a Static's). */
    SubagentPane .subagent-task, SubagentPane .subagent-result { text-wrap: nowrap; text-overflow: ellipsis; }
    SubagentPane.folded .subagent-result { color: $text-muted; }
    """

    def __init__(self, record: Item) -> None:
        super().__init__(record, pane_key(str(record["call_id"])))
        self.styles.margin = (0, 0, 0, 2)  # right under its call, set in (over the stylesheet's .entry)
        self.done: deque[Text] = deque(maxlen=DONE_LINES)  # the last committed items, one line each
        self._header = Static(header_text(record), classes="subagent-header")
        self._result = Static("", classes="subagent-result")
        self._result.display = False
        self._body = Vertical(classes="subagent-body")
        self._done = Static("", classes="subagent-done")
        self._done.display = False
        self._activity = Static("", classes="subagent-activity")
        self._activity.display = False

    @property
    def subagent(self) -> str:
        return str(self.item["subagent"])

    @property
    def folded(self) -> bool:
        return self.item.get("status") != "running"

    def compose(self) -> ComposeResult:
        yield self._header
        yield Static(task_text(self.item), classes="subagent-task")
        with self._body:
            yield self._done
            yield self._activity
        yield self._result

    def on_mount(self) -> None:
        if self.folded:  # made folded (a resumed session's, or one that ended before it was drawn)
            self._show_folded()
        self._delegate_call()

    def _delegate_call(self) -> None:
        """The call right above says only that it spawned this pane: the task and the answer
        its arguments and output hold are this pane's task and result lines, not shown twice."""
        siblings = list(self.parent.children) if self.parent is not None else []
        at = siblings.index(self) if self in siblings else 0
        for above in reversed(siblings[:at]):
            if isinstance(above, ToolCallEntry) and above.item.get("call_id") == self.item.get("call_id"):
                above.add_class("delegated")
                return
            if not isinstance(above, SubagentPane):
                return

    async def add_live(self, pane: LivePane) -> None:
        """An item of the subagent starts streaming: its live pane, at the body's end, a few
        lines high and kept at its newest line (the inspector has all of it)."""
        if isinstance(pane, LiveMessage):
            pane.grow_by_line()
        pane.styles.margin = 0  # (the stylesheet's .live margin, inside the pane, is a blank line)
        await self._body.mount(pane)
        pane.anchor()

    def committed(self, item: Item) -> None:
        """An item of the subagent is committed: one line (the last few are shown); its
        task, the first user message, is in the header already."""
        if item.get("type") == "message" and item.get("role") == "user":
            return
        self.done.append(item_line(item))
        self._done.update(Text("\n").join(self.done))
        self._done.display = True
        self._activity.display = False

    def activity(self, text: str) -> None:
        """What it is doing besides streaming an item: a tool's output, a retry, a notice."""
        lines = [line for line in sanitize(text).splitlines() if line.strip()]
        if lines:
            self._activity.update(Text(short_row(lines[-1], ROW), no_wrap=True, overflow="ellipsis"))
            self._activity.display = True

    def add_tokens(self, tokens: int) -> None:
        if tokens:
            self.item["tokens"] = int(self.item.get("tokens") or 0) + tokens
            self._header.update(header_text(self.item))

    async def fold(self, status: str, result: str | None, tokens: int | None) -> None:
        """It ended: header (its final status and tokens) and a one-line result, nothing else."""
        self.item["status"] = status
        self.item["result"] = result
        if tokens is not None:
            self.item["tokens"] = tokens
        if self.is_mounted:
            await self._body.remove_children()
            self._show_folded()

    def _show_folded(self) -> None:
        self.add_class("folded")
        self._body.display = False
        self._header.update(header_text(self.item))
        self._result.update(result_text(self.item))
        self._result.display = True

    def copy_text(self) -> str:
        return str(self.item.get("result") or "")

    def action_toggle_entry(self) -> None:
        """Enter (or space) on the pane: its items in the inspector, as a click does."""
        self.post_message(OpenRawItem(self.item_id))


def resumed_record(call: Item, output: Item | None, items: list[Item], who: tuple[str, str] | None,
                   end: tuple[str, str | None] | None = None) -> Item:
    """A resumed session's subagent, folded, from what the session holds: the call (its
    task), the subagent's (id, name), its items and how it ended (`end`: its status and
    error, None from a session that did not record it), and its result: the last message
    it committed, else the error, else the call's output (a failure said plainly)."""
    import json

    from rivulet.core import items as it
    from rivulet.core.kinds.calls import output_text

    try:
        arguments = json.loads(str(call.get("arguments") or "{}"))
    except ValueError:
        arguments = {}
    task = arguments.get("task") if isinstance(arguments, dict) else None
    subagent, name = who or ("", "")
    record = subagent_record(subagent, str(it.call_id(call) or ""), name or subagent or "agent", str(task or ""))
    answer = next((it.message_text(i) for i in reversed(items)
                   if i.get("type") == "message" and i.get("role") == "assistant"), None)
    status, error = end or ("completed" if answer else "ended", None)
    record["status"] = status
    shown = error if status == "failed" and error else answer
    record["result"] = shown or (output_text(output) if output is not None else None)
    return record
