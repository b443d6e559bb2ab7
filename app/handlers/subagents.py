"""Subagents in the chat (issue 41): each gets a pane under the call that spawned it
(widgets/subagent_pane.py); the events of its own conversation, relayed on the parent's
bus wrapped in `SubagentEvent`, stream into that pane only. A subagent's live item is
keyed by (subagent id, item id): its deltas never reach the conversation's own live
pane nor another subagent's. Its live panes are flushed by the same frame tick as the
conversation's (LivePanes.nested), once per frame however many subagents stream.

The committed items of each subagent are kept here, by the parent's call_id (and taken
from the session on resume): the inspector shows them (`entries`, app/tui_views.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.turn import bus as b
from rivulet.core.turn.history import HistoryEntry
from rivulet.core.turn.turn_cost import split_usage
from rivulet.widgets.entries import ToolCallEntry
from rivulet.widgets.kind_views import live_pane_for
from rivulet.widgets.subagent_pane import KEY_PREFIX, SubagentPane, subagent_record

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import Handler
    from rivulet.app.chat_view import ChatView
    from rivulet.app.handlers.commits import Commits
    from rivulet.app.handlers.live_panes import LivePanes
    from rivulet.core.store.session import Session

Item = dict[str, Any]


def tokens_of(usage: Item | None) -> int:
    parts = split_usage(usage)
    return parts["input"] + parts["output"]


class Subagents:
    def __init__(self, view: ChatView, live_panes: LivePanes, commits: Commits) -> None:
        self.view = view
        self.live_panes = live_panes  # the frame tick flushes the subagents' live panes too
        self.commits = commits  # keeps each pane's record: a transcript rebuilt draws it again
        self.panes: dict[str, SubagentPane] = {}  # subagent id → its pane, from its start
        self.items: dict[str, list[HistoryEntry]] = {}  # the parent's call_id → the subagent's items
        self.names: dict[str, str] = {}  # the parent's call_id → the subagent's name
        self.completing: set[tuple[str, str]] = set()  # (subagent, item) committed later in this batch

    def batch_started(self, events: list[b.BusEvent]) -> None:
        self.completing = {(e.subagent, e.event.item_id) for e in events
                           if isinstance(e, SubagentEvent) and isinstance(e.event, b.ItemCompleted)}

    async def batch_ended(self) -> None:
        self.completing = set()

    def routes(self) -> dict[type, Handler]:
        return {SubagentStarted: self.started, SubagentEvent: self.relayed, SubagentEnded: self.ended}

    async def started(self, event: SubagentStarted) -> None:
        pane = SubagentPane(subagent_record(event.subagent, event.call_id, event.name, event.task))
        self.panes[event.subagent] = pane
        self.items[event.call_id] = []
        self.names[event.call_id] = event.name
        self.commits.subagents[event.call_id] = pane.item
        self.view.status.set(subagents=len(self.panes))
        await self._mount_under_call(pane, event.call_id)

    async def _mount_under_call(self, pane: SubagentPane, call_id: str) -> None:
        """Right under its call, or at the end when the call is not a widget (frozen)."""
        transcript = self.view.transcript
        anchor = next((c for c in transcript.query_children(ToolCallEntry) if c.item.get("call_id") == call_id),
                      None)
        if anchor is None:
            await transcript.mount(pane)
            return
        children = list(transcript.children)
        at = children.index(anchor)
        while at + 1 < len(children) and isinstance(children[at + 1], SubagentPane):
            at += 1  # (one call spawns one subagent; this keeps a stray second one in order)
        await transcript.mount(pane, after=children[at])

    async def relayed(self, event: SubagentEvent) -> None:
        pane = self.panes.get(event.subagent)
        if pane is None:
            return  # its start was never seen (a chat attached mid-turn): nowhere to draw it
        inner, sub = event.event, event.subagent
        nested = self.live_panes.nested
        if isinstance(inner, b.ItemDelta):  # the hot path: an O(1) append, drawn by the frame tick
            live = nested.get((sub, inner.item_id))
            if live is not None and not live.has_class("live-ended"):
                live.add_delta(inner.kind, inner.delta)
        elif isinstance(inner, b.ItemStarted):
            if pane.folded or (sub, inner.item_id) in self.completing:
                return  # (committed in this same batch: its live pane would never be drawn)
            live = live_pane_for(inner.item, inner.item_id, self.live_panes.show_raw_reasoning)
            nested[(sub, inner.item_id)] = live
            await pane.add_live(live)
            self.view.frame_timer.resume()
        elif isinstance(inner, b.ItemPart):
            if (live := nested.get((sub, inner.item_id))) is not None:
                live.add_part(inner.kind, inner.index)
        elif isinstance(inner, b.ItemLiveEnded):
            if (live := nested.get((sub, inner.item_id))) is not None:
                await live.flush(force=True)
                live.add_class("live-ended")
        elif isinstance(inner, (b.ItemDiscarded, b.ItemCompleted)):
            if (live := nested.pop((sub, inner.item_id), None)) is not None:
                await live.close()
                await live.remove()
            if isinstance(inner, b.ItemCompleted):
                self.items.setdefault(event.call_id, []).append(HistoryEntry(inner.item, key=inner.item_id))
                pane.committed(inner.item)
        elif isinstance(inner, b.UsageUpdated):
            pane.add_tokens(tokens_of(inner.usage))
        elif isinstance(inner, b.ToolOutputDelta):
            pane.activity(inner.text)
        elif isinstance(inner, b.Retrying):
            pane.activity(f"retrying ({inner.attempt}/{inner.max_attempts}): {inner.error.message}")
        elif isinstance(inner, b.Notice):
            pane.activity(inner.text)

    async def ended(self, event: SubagentEnded) -> None:
        pane = self.panes.pop(event.subagent, None)
        if pane is None:
            return
        self.view.status.set(subagents=len(self.panes))
        await self._drop_live(event.subagent)
        result = event.answer if event.status == "completed" else event.error or event.answer
        await pane.fold(event.status, result, tokens_of(event.usage) if event.usage else None)

    async def _drop_live(self, subagent: str) -> None:
        nested = self.live_panes.nested
        for key in [k for k in nested if k[0] == subagent]:
            live = nested.pop(key)
            await live.close()
            await live.remove()

    async def stop_all(self, reason: str) -> None:
        """The turn stopped with subagents still running (no end came for them): each folds,
        cancelled."""
        for subagent, pane in list(self.panes.items()):
            await self._drop_live(subagent)
            await pane.fold("cancelled", reason, None)
        self.panes.clear()
        self.view.status.set(subagents=0)

    def forget(self) -> None:
        """A new conversation, or another session: what was kept of this one's subagents goes."""
        if self.panes:
            self.view.status.set(subagents=0)
        self.panes.clear()
        self.items.clear()
        self.names.clear()
        self.live_panes.nested.clear()
        self.commits.subagents.clear()

    def entries(self, key: str, session: Session | None = None) -> tuple[str, list[HistoryEntry]] | None:
        """The subagent behind a pane's key: its name and its items, numbered (this run's,
        or a resumed session's)."""
        if not key.startswith(KEY_PREFIX):
            return None
        call_id = key[len(KEY_PREFIX):]
        found = self.items.get(call_id)
        if found is None and session is not None:
            found = self._from_session(session, call_id)
        if found is None:
            return None
        for n, entry in enumerate(found, 1):
            entry.seq = n
        return self.names.get(call_id, ""), found

    def _from_session(self, session: Session, call_id: str) -> list[HistoryEntry] | None:
        items = session.subagent_items.get(call_id)
        if items is None:
            return None
        found = self.items[call_id] = [HistoryEntry(i, key=str(i.get("id") or "")) for i in items]
        self.names[call_id] = (session.subagents.get(call_id) or ("", "agent"))[1]
        return found
