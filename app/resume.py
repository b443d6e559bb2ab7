"""A resumed session: its committed items become transcript entries again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core import items as it
from rivulet.core.sanitize import sanitize
from rivulet.widgets.entries import ToolCallEntry, entry_for
from rivulet.widgets.frozen_entries import KEEP_ENTRIES

if TYPE_CHECKING:
    from rivulet.app.tui import RivuletApp


async def rebuild_transcript(app: RivuletApp) -> None:
    """Every committed item becomes its entry again, in order; each output joins its call."""
    assert app.session is not None
    entries = app.session.history.entries
    outputs = {it.call_id(e.item): e.item for e in entries if it.is_output(e.item)}
    called = {it.call_id(e.item) for e in entries if it.is_call(e.item)}
    shown = [e for e in entries if not (it.is_output(e.item) and it.call_id(e.item) in called)]
    # The oldest go straight to the frozen block: a long session resumes as fast as a short one.
    cut = max(0, len(shown) - KEEP_ENTRIES)
    if cut:
        frozen = await app.commits.frozen_block()
        for entry in shown[:cut]:
            frozen.add(entry.key or f"item-{entry.seq}", entry.item, outputs.get(it.call_id(entry.item)))
    widgets = []
    for entry in shown[cut:]:
        widget = entry_for(entry.item, entry.key or f"item-{entry.seq}")
        if isinstance(widget, ToolCallEntry):
            widget.output = outputs.get(it.call_id(entry.item))
        widgets.append(widget)
    await app._transcript.mount_all(widgets)
    app._transcript.follow()  # resumed at the bottom, and kept there as entries render
    meta = app.session.meta
    app._status.note = f"Resumed session {sanitize(meta.id)}: {len(app.session.history)} items"
    for warning in app.session.warnings:
        app.notify(sanitize(warning), severity="warning", timeout=8)
    workspace = app.tool_settings.workspace if app.tool_settings is not None else None
    if workspace is not None and meta.cwd and str(workspace) != meta.cwd:
        app.notify(sanitize(f"This session was started in {meta.cwd}; its tools now work in {workspace}."),
                   severity="warning", timeout=10)
    app._status.refresh_line()
