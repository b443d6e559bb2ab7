"""A resumed session: its committed items become transcript entries again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rivulet.core import items as it
from rivulet.core.sanitize import sanitize
from rivulet.widgets.entries import ToolCallEntry, entry_for

# The newest entries a resumed (or rebuilt) transcript mounts as widgets: about a screen.
# Each is a Textual Markdown, the costly part of a resume; older ones are data, drawn as
# lines when scrolled to, and the widgets grow back to KEEP_ENTRIES as the chat goes on.
RESUME_WIDGETS = 8

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
    from rivulet.core.turn.history import HistoryEntry


async def rebuild_transcript(app: CommandContext) -> None:
    """Every committed item becomes its entry again, in order; each output joins its call."""
    assert app.session is not None
    await mount_history(app, app.session.history.entries)
    meta = app.session.meta
    for warning in app.session.warnings:
        app.notify(sanitize(warning), severity="warning", timeout=8)
    workspace = app.tool_settings.workspace if app.tool_settings is not None else None
    if workspace is not None and meta.cwd and str(workspace) != meta.cwd:
        app.notify(sanitize(f"This session was started in {meta.cwd}; its tools now work in {workspace}."),
                   severity="warning", timeout=10)
    app.chat.status.say(f"Resumed session {sanitize(meta.id)}: {len(app.session.history)} items")


async def mount_history(app: CommandContext, entries: list[HistoryEntry]) -> None:
    """History entries as transcript entries, at its end (also after an edit cut it back)."""
    outputs = {it.call_id(e.item): e.item for e in entries if it.is_output(e.item)}
    called = {it.call_id(e.item) for e in entries if it.is_call(e.item)}
    shown = [e for e in entries if not (it.is_output(e.item) and it.call_id(e.item) in called)]
    # The oldest go straight to the frozen block: a long session resumes as fast as a short one.
    cut = max(0, len(shown) - RESUME_WIDGETS)
    if cut:
        frozen = await app.commits.frozen_block()
        frozen.add_all([(entry.key or f"item-{entry.seq}", entry.item, outputs.get(it.call_id(entry.item)))
                        for entry in shown[:cut]])
    widgets = []
    for entry in shown[cut:]:
        widget = entry_for(entry.item, entry.key or f"item-{entry.seq}")
        if isinstance(widget, ToolCallEntry):
            widget.output = outputs.get(it.call_id(entry.item))
        widgets.append(widget)
    await app.chat.transcript.mount_all(widgets)
    app.chat.transcript.follow()  # at the bottom, and kept there as entries render
