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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rivulet.app.commands.services import HasEngine, HasNotify, HasTurns
from rivulet.app.resume import mount_history
from rivulet.core.turn.rewind import RewindError, rewind
from rivulet.widgets.entries import TranscriptEntry

if TYPE_CHECKING:
    from rivulet.app.attach.composer import ComposerAttachments
    from rivulet.app.chat_view import ChatView
    from rivulet.app.handlers.commits import Commits
    from rivulet.app.undo_views import Screens
    from rivulet.core.turn.conversation import Conversation

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


class EditNeeds(HasEngine, HasTurns, HasNotify, Protocol):
    pass


@dataclass(frozen=True)
class Editing:
    """What an edit is given of the chat (app/attach/ui.py makes one): the services, the
    view and its commits, the dialogs, and the composer's attachments and chips."""

    services: EditNeeds
    view: ChatView
    commits: Commits
    screens: Screens
    attachments: ComposerAttachments
    refresh_chips: Callable[[], None]


async def edit_message(e: Editing, turn_id: int | None = None) -> bool:
    """Take the message of `turn_id` (None: the last one) back into the composer."""
    from rivulet.app.undo_views import rewind_files
    from rivulet.core.turn.rewind import user_turns

    conversation = e.services.engine.conversation
    turns = user_turns(conversation.history)
    target = turn_id if turn_id is not None else (turns[-1].turn_id if turns else None)
    if target is not None and not await rewind_files(e.services, e.screens, target):  # "and files" (issue 26)
        return False
    try:
        draft = rewind(conversation, turn_id)
    except RewindError as exc:
        e.services.notify(exc.message, severity="warning")
        return False
    await drop_cut_entries(e.view, e.commits, conversation, draft.turn_id)
    e.view.composer.restore(draft.prompt)
    attachments = e.attachments
    held = attachments.held  # anything already held (a pasted image) stays, after the draft's
    attachments.held = []
    for attachment in [*draft.attachments, *held]:
        attachments.hold(attachment)
    e.refresh_chips()
    e.view.status.say("Editing")  # short: the status line gives its left end way first
    e.view.composer.focus()
    return True


async def drop_cut_entries(view: ChatView, commits: Commits, conversation: Conversation, turn_id: int) -> None:
    """The transcript loses the message and everything after it. When the message is
    still a widget, it and the widgets after it go; when it was frozen (an old one),
    the transcript is built again from history."""
    transcript = view.transcript
    children = list(transcript.children)
    for n, child in enumerate(children):
        if isinstance(child, TranscriptEntry) and child.item_id == f"user-{turn_id}":
            await transcript.remove_children(children[n:])
            return
    await transcript.remove_children(list(transcript.children))
    await mount_history(view, commits, conversation.history.entries)
