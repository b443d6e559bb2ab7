"""Item Done: the live pane gives way to the committed entry; tool outputs join their
calls; old entries are frozen so a long conversation stays cheap to lay out.

Commits arrive in batches (the bridge hands over every bus event of a frame at once,
and the screen is laid out once after it). Only the newest few of a batch become
widgets: the ones before them, and every widget older than them, go to the frozen
block as data, an O(1) append; in a flood, only the newest one. So a response of 10,000
items mounts one widget per frame, not one per item, and the transcript holds a bounded
number of widgets."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from rivulet.core import items as it
from rivulet.core.kinds.reasoning import heading_of, reasoning_summary
from rivulet.core.turn import bus as b
from rivulet.widgets.compat.textual import is_pruning
from rivulet.widgets.entries import OtherEntry, ToolCallEntry, TranscriptEntry
from rivulet.widgets.frozen_entries import FLOOD_ENTRIES, KEEP_ENTRIES, FrozenEntries
from rivulet.widgets.kind_views import entry_for
from rivulet.widgets.live import LivePane
from rivulet.widgets.note_line import NoteLine
from rivulet.widgets.subagent_pane import SubagentPane

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import Handler
    from rivulet.app.chat_view import ChatView
    from rivulet.app.handlers.live_panes import LivePanes

# In one batch, commits followed by at least this many more go straight to the frozen
# block: a widget mount (and its Markdown) is the costly part of a commit. No more than
# the transcript keeps: more would be mounted only to be frozen at the batch's end.
WIDGETS_PER_BATCH = KEEP_ENTRIES
# In a flood (FLOOD_ENTRIES or more commits in one batch) only the batch's newest commit
# becomes a widget: the next batch freezes it at once, so the others were mounted,
# registered, styled and removed for one frame each (~15 % of a 10,000-item flood's main
# thread). The newest stays a widget so that the answer a flood ends with looks as every
# committed answer does and the keyboard reaches it (shift+Tab), and so that a call that
# ends a response (whose tool then runs) is the widget its output streams into.
FLOOD_WIDGETS = 1
# Entry widgets beyond KEEP_ENTRIES before the oldest are frozen, so freezing is not on
# every commit. Small: an answer's Markdown is ~90 widgets, and each layout pass (one
# per commit batch, while the reader of the stream waits) visits every one of them.
FREEZE_SLACK = 4


class Commits:
    def __init__(self, view: ChatView, live_panes: LivePanes) -> None:
        self.view = view
        self.live_panes = live_panes  # a committed item takes its pane's place
        self.ahead = 0  # commits still to come in the batch being handled
        self.widgets = WIDGETS_PER_BATCH  # the newest commits of this batch that become widgets
        # This run's subagents (issue 41): their panes' records, by the call's id, for a transcript
        # rebuilt from history (an edit) to draw them again (app/resume.py mount_history).
        self.subagents: dict[str, dict[str, Any]] = {}

    def routes(self) -> dict[type, Handler]:
        return {b.ItemCompleted: self.completed, b.ToolOutputDelta: self.tool_output}

    def batch_started(self, events: list[b.BusEvent]) -> None:
        self.ahead = sum(1 for e in events if isinstance(e, b.ItemCompleted))
        self.widgets = FLOOD_WIDGETS if self.ahead >= FLOOD_ENTRIES else WIDGETS_PER_BATCH

    async def batch_ended(self) -> None:
        self.ahead, self.widgets = 0, WIDGETS_PER_BATCH
        await self.freeze_old_entries()

    async def settle(self, done: Awaitable[Any]) -> None:
        """Wait for a mount or a removal, unless more commits of this batch follow: each
        wait lets the turn's reader run, and a flood would make the batch (and a key
        behind it) wait much longer than its own work. Textual does it all the same."""
        if self.ahead == 0:
            await done

    async def completed(self, event: b.ItemCompleted) -> None:
        self.ahead = max(0, self.ahead - 1)
        await self.commit(event.item, event.item_id, as_data=self.ahead >= self.widgets)

    async def commit(self, item: dict[str, Any], item_id: str, as_data: bool = False) -> None:
        """The committed entry, in the live pane's place: a widget, or (`as_data`) a line
        of the frozen block, when newer entries of the same batch will cover it at once."""
        transcript = self.view.transcript
        pane = self.live_panes.take(item_id)
        if it.is_output(item):
            call_id = it.call_id(item)
            for call in self.tool_calls(call_id):
                call.remove_class("running")
                call.set_output(item)
                return
            frozen = transcript.frozen
            if frozen is not None and call_id is not None and frozen.has_call(call_id):
                frozen.set_output(call_id, item)
                return
            if as_data:
                await self.add_as_data(item, item_id, pane)
            else:
                await self.settle(transcript.mount(OtherEntry(item, item_id)))
            return
        if item.get("type") == "reasoning":
            heading = heading_of(reasoning_summary(item))
            if heading and self.view.status.line.state in ("working", "retrying"):
                self.view.status.set(heading=heading)
        if as_data:
            await self.add_as_data(item, item_id, pane)
            return
        entry = entry_for(item, item_id)
        if pane is not None:
            await pane.close()
            await self.settle(transcript.mount(entry, before=pane))
            await self.settle(pane.remove())
        else:
            await self.settle(transcript.mount(entry))

    async def add_as_data(self, item: dict[str, Any], item_id: str, pane: LivePane | None) -> None:
        """Straight to the frozen block, after every widget entry (they are older)."""
        if pane is not None:
            await pane.close()
            await self.settle(pane.remove())
        frozen = await self.freeze(self.entry_widgets())
        frozen.add(item_id, item)

    async def tool_output(self, event: b.ToolOutputDelta) -> None:
        for call in self.tool_calls(event.call_id):
            call.add_class("running")
            call.append_output(event.text)

    def tool_calls(self, call_id: str | None) -> list[ToolCallEntry]:
        return [e for e in self.view.transcript.query_children(ToolCallEntry) if it.call_id(e.item) == call_id]

    def stop_running(self) -> None:
        for entry in self.view.transcript.query_children(ToolCallEntry).filter(".running"):
            entry.remove_class("running")

    def entry_widgets(self) -> list[TranscriptEntry | NoteLine]:
        """The entry widgets that may be frozen, oldest first: those above the first running
        subagent's pane (it streams; it and what follows it stay widgets, in order). A
        protocol note is frozen in its place among them."""
        out: list[TranscriptEntry | NoteLine] = []
        for w in self.view.transcript.children:
            if isinstance(w, SubagentPane) and not w.folded:
                break
            if isinstance(w, (TranscriptEntry, NoteLine)) and not is_pruning(w):
                out.append(w)
        return out

    async def freeze_old_entries(self) -> None:
        """Keep the newest KEEP_ENTRIES entries as widgets; hand older ones to the frozen
        block (FREEZE_SLACK at a time, so it does not happen on every commit)."""
        entries = self.entry_widgets()
        if len(entries) > KEEP_ENTRIES + FREEZE_SLACK:
            await self.freeze(entries[: len(entries) - KEEP_ENTRIES])

    async def freeze(self, old: list[TranscriptEntry | NoteLine]) -> FrozenEntries:
        """These entry widgets (the oldest) become data of the frozen block."""
        frozen = await self.frozen_block()
        for widget in old:
            frozen.add(widget.item_id, widget.item, widget.output)
        if old:
            await self.settle(self.view.transcript.remove_children(old))
        return frozen

    async def frozen_block(self, before: Widget | None = None) -> FrozenEntries:
        """The transcript's frozen block, made above its first entry or live pane."""
        transcript = self.view.transcript
        found = transcript.frozen
        if found is not None:
            return found
        if before is None:
            before = next((w for w in transcript.children if isinstance(w, (TranscriptEntry, LivePane))), None)
        block = FrozenEntries(id="frozen-entries")
        await transcript.mount(block, before=before)
        return block
