"""Item Done: the live pane gives way to the committed entry; tool outputs join their
calls; old entries are frozen so a long conversation stays cheap to lay out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from rivulet.core import items as it
from rivulet.core.turn import bus as b
from rivulet.widgets.entries import OtherEntry, ToolCallEntry, TranscriptEntry, entry_for, heading_of, reasoning_summary
from rivulet.widgets.frozen_entries import KEEP_ENTRIES, FrozenEntries

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import Handler
    from rivulet.app.tui import RivuletApp


class Commits:
    def __init__(self, app: RivuletApp) -> None:
        self.app = app

    def routes(self) -> dict[type, Handler]:
        return {b.ItemCompleted: self.completed, b.ToolOutputDelta: self.tool_output}

    async def completed(self, event: b.ItemCompleted) -> None:
        await self.commit(event.item, event.item_id)

    async def commit(self, item: dict[str, Any], item_id: str) -> None:
        """One full render of the committed entry, in the live pane's place."""
        transcript = self.app._transcript
        pane = self.app.live_panes.take(item_id)
        if it.is_output(item):
            for call in self.tool_calls(it.call_id(item)):
                call.remove_class("running")
                call.set_output(item)
                return
            await transcript.mount(OtherEntry(item, item_id))
            return
        if item.get("type") == "reasoning":
            heading = heading_of(reasoning_summary(item))
            status = self.app._status
            if heading and status.state in ("working", "retrying"):
                status.heading = heading
                status.refresh_line()
        entry = entry_for(item, item_id)
        if pane is not None:
            await pane.close()
            await transcript.mount(entry, before=pane)
            await pane.remove()
        else:
            await transcript.mount(entry)
        await self.freeze_old_entries()

    async def tool_output(self, event: b.ToolOutputDelta) -> None:
        for call in self.tool_calls(event.call_id):
            call.add_class("running")
            call.append_output(event.text)

    def tool_calls(self, call_id: str | None) -> list[ToolCallEntry]:
        return [e for e in self.app._transcript.query(ToolCallEntry) if it.call_id(e.item) == call_id]

    def stop_running(self) -> None:
        for entry in self.app._transcript.query(ToolCallEntry).filter(".running"):
            entry.remove_class("running")

    async def freeze_old_entries(self) -> None:
        """Keep the newest KEEP_ENTRIES entries as widgets; hand older ones to the frozen
        block (in batches of ten, so it does not happen on every commit)."""
        transcript = self.app._transcript
        entries = [w for w in transcript.children if isinstance(w, TranscriptEntry)]
        if len(entries) <= KEEP_ENTRIES + 10:
            return
        old = entries[: len(entries) - KEEP_ENTRIES]
        frozen = await self.frozen_block(before=old[0])
        for widget in old:
            frozen.add(widget.item_id, widget.item, getattr(widget, "output", None))
        await transcript.remove_children(old)

    async def frozen_block(self, before: Widget | None = None) -> FrozenEntries:
        transcript = self.app._transcript
        found = transcript.query(FrozenEntries)
        if found:
            return found.first()
        block = FrozenEntries(id="frozen-entries")
        await transcript.mount(block, before=before)
        return block
