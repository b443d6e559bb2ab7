"""`rivulet resume` of a session whose last turn left a background response running:
the chat re-attaches in a turn worker (Esc cancels the wait, and the response on the
server), and its output joins the transcript as it is committed."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext


def reattach_later(app: CommandContext) -> None:
    pending = app.session.background if app.session is not None else None
    if pending is None or app.conversation is None:
        return
    app.chat.status.say(sanitize(f"Waiting for background response {pending.get('response_id')}…"))
    app.turn_worker = app.run_worker(_reattach(app, pending), group="turn", exclusive=True, exit_on_error=False)


async def _reattach(app: CommandContext, pending: dict[str, Any]) -> None:
    from rivulet.core.turn.background_turns import reattach

    assert app.conversation is not None
    conv = app.conversation
    try:
        await reattach(conv, pending)
    except RivuletError:
        pass  # published on the bus as ErrorOccurred; the handler shows it
    except asyncio.CancelledError:
        cancel = getattr(conv.transport, "cancel", None)
        if conv.cancel_requested and cancel is not None:  # Esc: the server stops too
            try:
                await asyncio.wait_for(cancel(str(pending.get("response_id"))), conv.settings.connect_timeout)
            except (RivuletError, TimeoutError):
                pass
        raise
    finally:
        conv.cancel_requested = False
