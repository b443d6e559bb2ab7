"""Edit and resend, the core side: cut history back to just before one of the user's
messages and hand back that message as a draft (its prompt and its attachments), for
the UI to edit and send as a new turn.

The cut is `History.rewind`: the session file records it as a truncation (reason
`edit`), above which the old branch stays in the file, and a resumed session keeps
that branch in `History.branches`. Turn numbers go on from the highest ever used, so
the new turn never shares a number with the one it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rivulet.core import items as it
from rivulet.core.errors import RivuletError
from rivulet.core.turn.attachments import Attachment, grouped_content
from rivulet.core.turn.history import History

if TYPE_CHECKING:
    from rivulet.core.turn.conversation import Conversation


class RewindError(RivuletError):
    kind = "rewind_error"


@dataclass(frozen=True)
class UserTurn:
    index: int  # its position in history
    turn_id: int
    item: it.Item


@dataclass(frozen=True)
class Draft:
    turn_id: int  # the turn it came from
    prompt: str
    attachments: tuple[Attachment, ...]  # as recorded: resent as they were, not read again


def user_turns(history: History) -> list[UserTurn]:
    """The user messages that began turns, oldest first (what can be edited)."""
    out = []
    for n, entry in enumerate(history.entries):
        key = entry.key or ""
        if key.startswith("user-") and key[5:].isdigit():
            out.append(UserTurn(n, int(key[5:]), entry.item))
    return out


def draft_of(turn_id: int, item: it.Item) -> Draft:
    """A recorded user message as a prompt and the attachments it carried."""
    prompts: list[str] = []
    attachments: list[Attachment] = []
    for piece, parts in grouped_content(item):
        if piece.kind == "text":
            prompts.append(piece.text)
        elif piece.kind == "file":
            attachments.append(Attachment(piece.path or "", "file", len(piece.text.encode("utf-8")), parts))
        else:
            attachments.append(Attachment(piece.path or "", "image", piece.size or 0, parts, piece.mime or "image"))
    return Draft(turn_id, "".join(prompts), tuple(attachments))


def rewind(conv: Conversation, turn_id: int | None = None) -> Draft:
    """Cut `conv`'s history back to just before the user message of `turn_id` (None:
    the last one) and return it as a draft. Call it between turns."""
    turns = user_turns(conv.history)
    if not turns:
        raise RewindError("there is no message of yours to edit")
    chosen = turns[-1] if turn_id is None else next((t for t in turns if t.turn_id == turn_id), None)
    if chosen is None:
        raise RewindError(f"turn {turn_id} is not in the history (it may have been compacted)")
    draft = draft_of(chosen.turn_id, chosen.item)
    conv.history.rewind(chosen.index)
    conv.last_usage = None  # the context is smaller now; the next response says by how much
    return draft
