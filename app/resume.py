"""A resumed session: its committed items become transcript entries again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rivulet.core import items as it
from rivulet.core.sanitize import sanitize
from rivulet.widgets.entries import ToolCallEntry
from rivulet.widgets.kind_views import entry_for
from rivulet.widgets.subagent_pane import pane_key, resumed_record

# The newest entries a resumed (or rebuilt) transcript mounts as widgets: about a screen.
# Each is a Textual Markdown, the costly part of a resume; older ones are data, drawn as
# lines when scrolled to, and the widgets grow back to KEEP_ENTRIES as the chat goes on.
RESUME_WIDGETS = 8

if TYPE_CHECKING:
    from pathlib import Path

    from rivulet.app.chat_view import ChatView
    from rivulet.app.handlers.commits import Commits
    from rivulet.core.store.session import Session
    from rivulet.core.turn.history import HistoryEntry
    from rivulet.widgets.frozen_entries import Record


async def rebuild_transcript(view: ChatView, commits: Commits, session: Session, workspace: Path | None,
                             records: list[Record] | None = None) -> None:
    """Every committed item of `session` becomes its entry again, in order; each output joins
    its call. `records`: the session's, already built (a resume builds them in its boot
    thread); `workspace`: where the tools work now."""
    shown = transcript_records(session.history.entries) if records is None else records
    commits.subagents.update(resumed_panes(shown, session))  # (kept: an edit's rebuild draws them too)
    await mount_history(view, commits, session.history.entries, under_calls(shown, commits.subagents))
    meta = session.meta
    for welcome in view.transcript.query("#welcome"):  # a demo chat's, drawn before the session came
        await welcome.remove()
    for warning in session.warnings:
        view.notify(sanitize(warning), severity="warning", timeout=8)
    if workspace is not None and meta.cwd and str(workspace) != meta.cwd:
        view.notify(sanitize(f"This session was started in {meta.cwd}; its tools now work in {workspace}."),
                    severity="warning", timeout=10)
    view.status.say(f"Resumed session {sanitize(meta.id)}: {len(session.history)} items")


def transcript_records(entries: list[HistoryEntry]) -> list[Record]:
    """History as the transcript shows it, oldest first: (key, item, its call's output),
    an output that has its call shown with it rather than on its own. Plain data, a pass
    over every entry: a resume makes it in the boot thread, off the UI's."""
    outputs = {it.call_id(e.item): e.item for e in entries if it.is_output(e.item)}
    called = {it.call_id(e.item) for e in entries if it.is_call(e.item)}
    return [(e.key or f"item-{e.seq}", e.item, outputs.get(it.call_id(e.item))) for e in entries
            if not (it.is_output(e.item) and it.call_id(e.item) in called)]


def resumed_panes(records: list[Record], session: Session) -> dict[str, dict[str, Any]]:
    """The session's subagents (issue 41), folded: their panes' records, by the call's id."""
    made: dict[str, dict[str, Any]] = {}
    for _, item, output in records if session.subagent_items else ():
        call_id = it.call_id(item) if it.is_call(item) else None
        if call_id is not None and call_id in session.subagent_items:
            made[call_id] = resumed_record(item, output, session.subagent_items[call_id],
                                           session.subagents.get(call_id), session.subagent_ends.get(call_id))
    return made


def under_calls(records: list[Record], panes: Mapping[str, dict[str, Any]]) -> list[Record]:
    """`records` with the subagents' panes (`panes`: their records, by the call's id) each
    right under its call."""
    if not panes:
        return records
    out: list[Record] = []
    for key, item, output in records:
        out.append((key, item, output))
        call_id = it.call_id(item) if it.is_call(item) else None
        if call_id is not None and call_id in panes:
            out.append((pane_key(call_id), panes[call_id], None))
    return out


async def mount_history(view: ChatView, commits: Commits, entries: list[HistoryEntry],
                        records: list[Record] | None = None) -> None:
    """History entries as transcript entries, at its end (also after an edit cut it back);
    `records`: theirs, if already made (`transcript_records`). This run's subagents
    (an edit rebuilt the transcript) are drawn again under their calls, folded."""
    shown = under_calls(transcript_records(entries), commits.subagents) if records is None else records
    # The oldest go straight to the frozen block as data (drawn only where seen): a long
    # session resumes as fast as a short one.
    cut = max(0, len(shown) - RESUME_WIDGETS)
    if cut:
        frozen = await commits.frozen_block()
        frozen.add_all(shown[:cut])
    widgets = []
    for key, item, output in shown[cut:]:
        widget = entry_for(item, key)
        if isinstance(widget, ToolCallEntry):
            widget.output = output
        widgets.append(widget)
    await view.transcript.mount_all(widgets)
    view.transcript.follow()  # at the bottom, and kept there as entries render
