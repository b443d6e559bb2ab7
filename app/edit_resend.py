"""Edit and resend: a message of the user's goes back to the composer, history is cut
back to just before it (core's `rewind`: the session file records a truncation with
reason "edit" and keeps the old branch above it), and the transcript drops what was
cut. Sending the edited text is an ordinary new turn.

Esc twice on an empty composer edits the last message (as Codex does): only when no
turn runs and nothing else (a view, a popup, the search bar) wants the Esc. The
inspector's "edit from here" key edits an earlier one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rivulet.app.resume import mount_history
from rivulet.core.turn.rewind import RewindError, rewind
from rivulet.widgets.entries import TranscriptEntry

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext

DOUBLE_ESC = 0.8  # seconds: the second Esc of a double press comes sooner than this


class EscEsc:
    """Notices a second Esc soon after a first one that did nothing else."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._first: float | None = None

    def press(self) -> bool:
        now = self._clock()
        double = self._first is not None and now - self._first <= DOUBLE_ESC
        self._first = None if double else now
        return double

    def reset(self) -> None:
        self._first = None


def can_edit(app: CommandContext) -> bool:
    turn = app.turn_worker
    return (app.conversation is not None and app.attachments is not None
            and not (turn is not None and turn.is_running)
            and app.screen is app.screen_stack[0])


async def edit_message(app: CommandContext, turn_id: int | None = None) -> bool:
    """Take the message of `turn_id` (None: the last one) back into the composer."""
    if not can_edit(app):
        app.notify("Wait for the turn to end (or press Esc to stop it) before editing", severity="warning")
        return False
    assert app.conversation is not None and app.attachments is not None  # can_edit: the chat has started
    from rivulet.app.commands.undo import rewind_files
    from rivulet.core.turn.rewind import user_turns

    turns = user_turns(app.conversation.history)
    target = turn_id if turn_id is not None else (turns[-1].turn_id if turns else None)
    if target is not None and not await rewind_files(app, target):  # "conversation and files" (issue 26)
        return False
    try:
        draft = rewind(app.conversation, turn_id)
    except RewindError as exc:
        app.notify(exc.message, severity="warning")
        return False
    await drop_cut_entries(app, draft.turn_id)
    app.chat.composer.restore(draft.prompt)
    attachments = app.attachments
    held = attachments.held  # anything already held (a pasted image) stays, after the draft's
    attachments.held = []
    for attachment in [*draft.attachments, *held]:
        attachments.hold(attachment)
    app.refresh_chips()
    app.chat.status.say("Editing")  # short: the status line gives its left end way first
    app.chat.composer.focus()
    return True


async def drop_cut_entries(app: CommandContext, turn_id: int) -> None:
    """The transcript loses the message and everything after it. When the message is
    still a widget, it and the widgets after it go; when it was frozen (an old one),
    the transcript is built again from history."""
    transcript = app.chat.transcript
    children = list(transcript.children)
    for n, child in enumerate(children):
        if isinstance(child, TranscriptEntry) and child.item_id == f"user-{turn_id}":
            await transcript.remove_children(children[n:])
            return
    await rebuild(app)


async def rebuild(app: CommandContext) -> None:
    assert app.conversation is not None
    transcript = app.chat.transcript
    await transcript.remove_children(list(transcript.children))
    await mount_history(app, app.conversation.history.entries)
