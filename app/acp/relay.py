"""The engine's bus events as ACP session updates, in the order they were published:
answer deltas as `agent_message_chunk`, reasoning summaries as `agent_thought_chunk`,
each call as a `tool_call` when it starts and `tool_call_update`s after (its text when
committed, its output as it runs, its status at the end), a committed `update_plan` call
as a `plan`, a subagent as its `spawn_agent` call's updates (subagents.py).

Only committed items are final, as in the TUI: a call is `completed` or `failed` when
its output (or, for the server's own tools, the item) is committed; a call the stream
cut (ItemDiscarded) or the turn left unanswered (`settle`) is `failed`, never completed.

Deltas are sent once per turn of the event loop, not one message each: the deltas the
bus hands over together (a burst read in one slice of the stream) go as one chunk, and a
running command's output as one update of it, so a flood costs the editor and the agent
what a trickle does; any other event sends what is pending first, keeping the order.

When the client shows an agent's command output in a terminal (terminal_display.py), a
shell call's output goes there instead of as text; the command still runs in rivulet's
own runner, sandbox and approvals."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.app.acp import tool_calls as tc
from rivulet.app.acp.subagents import SubagentCalls
from rivulet.app.acp.terminal_display import TerminalDisplay, exit_code, ran
from rivulet.core import items as it
from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.tools.approval_event import ApprovalRequested
from rivulet.core.turn.bus import BusEvent, ItemCompleted, ItemDelta, ItemDiscarded, ItemStarted, ToolOutputDelta

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate

Send = Callable[["SessionUpdate"], Awaitable[None]]
MESSAGE_KINDS = ("output_text", "refusal")
THOUGHT_KINDS = ("reasoning_summary_text",)
OUTPUT_SHOWN = 64 * 1024  # of a running command's output sent with each update (the end of it)


class Relay:
    """One session's bus subscriber: `__call__` gets every event (in order, awaited)."""

    def __init__(self, send: Send, workspace: Path, terminal: bool = False) -> None:
        self.send, self.workspace = send, workspace
        self.terminal = TerminalDisplay() if terminal else None  # the client's display-only terminals
        self.subagents = SubagentCalls()  # each spawn_agent call, as its subagent runs
        self._calls: dict[str, str] = {}  # item id -> tool call id, for calls started and not yet ended
        self._running: dict[str, str] = {}  # tool call id -> its output so far (a command's; in a
        # terminal: what is not sent yet)
        self._open: set[str] = set()  # tool call ids not yet completed or failed
        self._diffs: dict[str, list[Any]] = {}  # a patch's diff blocks, shown again with its result
        self._pending: list[tuple[str, list[str]]] = []  # ("message" | "thought", texts) or ("output", [key])
        self._flushing: asyncio.Future[None] | None = None

    def __call__(self, event: BusEvent) -> Awaitable[None] | None:
        """A delta is held at once (no coroutine per delta: a flood is mostly deltas); any
        other event is handled after what is held is sent."""
        if isinstance(event, ItemDelta):
            self._delta(event)
            return None
        if isinstance(event, ToolOutputDelta):
            self._output(event.call_id, event.text)
            return None
        if isinstance(event, SubagentEvent):  # a subagent's own events: only what it commits is shown
            inner = event.event
            return self._subagent_item(event.call_id, inner.item) if isinstance(inner, ItemCompleted) else None
        return self._event(event)

    async def _event(self, event: BusEvent) -> None:
        await self.flush()
        if isinstance(event, ItemStarted):
            await self._started(event.item, event.item_id)
        elif isinstance(event, ItemCompleted):
            await self._completed(event.item, event.item_id)
        elif isinstance(event, ItemDiscarded):
            key = self._calls.pop(event.item_id, None)
            if key is not None:
                await self._end(key, "failed", tc.text_content(f"(cut: {event.reason})"))
        elif isinstance(event, SubagentStarted):
            if event.call_id in self._open:
                await self.send(self.subagents.started(event))
        elif isinstance(event, SubagentEnded):
            self.subagents.ended(event)  # final once the parent's output is committed
        elif isinstance(event, ApprovalRequested) and event.subagent is not None:
            self.subagents.asked.add(event.request.call_id)  # its question is a tool call: ended with its output

    async def _subagent_item(self, call_id: str, item: dict[str, Any]) -> None:
        await self.flush()
        for update in (self.subagents.item(call_id, item), self.subagents.asked_output(item)):
            if update is not None:
                await self.send(update)

    def _delta(self, event: ItemDelta) -> None:
        if not event.delta:
            return
        if event.kind in MESSAGE_KINDS:
            self._hold("message", event.delta)
        elif event.kind in THOUGHT_KINDS:
            self._hold("thought", event.delta)

    def _hold(self, kind: str, text: str) -> None:
        """Keep `text` for the flush at the next turn of the loop (started if none is due)."""
        if self._pending and self._pending[-1][0] == kind and kind != "output":
            self._pending[-1][1].append(text)
        elif not (kind == "output" and (kind, [text]) in self._pending):
            self._pending.append((kind, [text]))
        if self._flushing is None:
            self._flushing = asyncio.ensure_future(self._flush_soon())

    async def _flush_soon(self) -> None:
        try:
            await asyncio.sleep(0)  # the events handed over with this one join it
            await self._send_pending()
        finally:
            self._flushing = None

    async def flush(self) -> None:
        """Send what is pending now (before another update, at the turn's end)."""
        flushing = self._flushing
        if flushing is not None:
            await asyncio.shield(flushing)
        await self._send_pending()

    async def _send_pending(self) -> None:
        from acp import update_agent_message_text, update_agent_thought_text, update_tool_call

        pending, self._pending = self._pending, []
        for kind, texts in pending:
            if kind == "message":
                await self.send(update_agent_message_text("".join(texts)))
            elif kind == "thought":
                await self.send(update_agent_thought_text("".join(texts)))
            elif self.terminal is not None and self.terminal.shows(texts[0]) and texts[0] in self._running:
                for update in self.terminal.output(texts[0], self._running.pop(texts[0])):
                    await self.send(update)
            elif texts[0] in self._running:  # a command's output so far (still running)
                await self.send(update_tool_call(texts[0], status="in_progress",
                                                 content=tc.code_content(self._running[texts[0]])))

    async def _started(self, item: dict[str, Any], item_id: str) -> None:
        if not tc.is_tool_item(item) or it.is_output(item):
            return
        from acp import start_tool_call

        key = tc.call_key(item, item_id)
        self._calls[item_id] = key
        self._open.add(key)
        await self.send(start_tool_call(key, tc.title_of(item), kind=tc.tool_kind(item), status="pending"))

    async def _completed(self, item: dict[str, Any], item_id: str) -> None:
        from acp import start_tool_call, update_tool_call

        if it.is_output(item):
            key = it.call_id(item) or ""
            if key in self._open:
                from rivulet.core.kinds.calls import output_text

                text = output_text(item)
                if self.subagents.owns(key):
                    await self._end(key, *self.subagents.final(key, text))
                elif self.terminal is not None and self.terminal.shows(key) and ran(text):
                    await self._end_terminal(key, tc.output_status(item), exit_code(text))
                else:
                    await self._end(key, tc.output_status(item), tc.output_content(text))
            return
        plan = tc.plan_update(item)
        if plan is not None:
            await self.send(plan)
        if not tc.is_tool_item(item):
            return
        started = self._calls.pop(item_id, None)
        content = tc.call_content(item, self.workspace)
        key = started if started is not None else tc.call_key(item, item_id)
        if started is None:  # committed in the event it started in (no ItemStarted seen)
            self._open.add(key)
            await self.send(start_tool_call(key, tc.title_of(item), kind=tc.tool_kind(item), status="pending"))
        if it.is_call(item):  # ours to run: it runs now (once allowed)
            from acp.schema import FileEditToolCallContent

            self._diffs[key] = [c for c in content if isinstance(c, FileEditToolCallContent)]
            if self.terminal is not None and tc.is_shell(item):
                self.terminal.expect(key, tc.shell_cwd(item, self.workspace))
            await self.send(update_tool_call(key, title=tc.title_of(item), status="in_progress", content=content,
                                             raw_input=_raw_input(item)))
        else:  # the server's own tool: done as it is committed
            await self._end(key, tc.hosted_status(item), content)

    def _output(self, key: str, text: str) -> None:
        if key in self._open:
            self._running[key] = (self._running.get(key, "") + text)[-OUTPUT_SHOWN:]
            self._hold("output", key)

    async def _end(self, key: str, status: str, content: list[Any]) -> None:
        from acp import update_tool_call

        self._open.discard(key)
        self._running.pop(key, None)
        diffs = self._diffs.pop(key, [])
        self.subagents.discard(key)
        if self.terminal is not None:
            self.terminal.forget(key)
        await self.send(update_tool_call(key, status=status,  # type: ignore[arg-type]
                                         content=[*diffs, *content] if status == "completed" else content))

    async def _end_terminal(self, key: str, status: str, code: int | None, note: str = "") -> None:
        """A command shown in the client's terminal ends: its exit there, the call's status."""
        assert self.terminal is not None
        self._open.discard(key)
        self._running.pop(key, None)
        self._diffs.pop(key, None)
        for update in self.terminal.exit(key, status, code, note):
            await self.send(update)

    async def settle(self, why: str) -> None:
        """A turn ended (cancelled, failed): every call still open is failed, not completed."""
        from acp import update_tool_call

        await self.flush()
        for key in sorted(self._open):
            if self.terminal is not None and self.terminal.opened(key):  # it was running: its terminal ends too
                await self._end_terminal(key, "failed", None, why)
            else:
                await self._end(key, "failed", tc.text_content(why))
        for key in self.subagents.unanswered():  # a subagent's question whose call never ran
            await self.send(update_tool_call(key, status="failed", content=tc.text_content(why)))
        self._calls.clear()


def _raw_input(item: dict[str, Any]) -> Any:
    return {k: item[k] for k in ("name", "arguments", "input", "action") if k in item} or None
