"""`rivulet resume` of a session whose last turn left a background response running:
the chat re-attaches in the turn's place (Esc cancels the wait, and the response on the
server), and its output joins the transcript as it is committed."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.app.commands.services import HasEngine, HasStatus, HasTurns
from rivulet.core.errors import RivuletError

if TYPE_CHECKING:
    from rivulet.app.commands.results import Result
    from rivulet.core.turn.conversation import Conversation


class ReattachNeeds(HasEngine, HasStatus, HasTurns, Protocol):
    pass


async def reattach_later(s: ReattachNeeds) -> None:
    session = s.engine.session
    pending = session.background if session is not None else None
    if pending is None:
        return
    s.status.say(f"Waiting for background response {pending.get('response_id')}…")
    await s.turns.run_as_turn(partial(_reattach, s.engine.conversation, pending))


async def _reattach(conv: Conversation, pending: dict[str, Any]) -> Result:
    from rivulet.core.turn.background_turns import reattach

    try:
        await reattach(conv, pending)
    except RivuletError:
        pass  # published on the bus as ErrorOccurred; the handler shows it
    except asyncio.CancelledError:
        api = conv.transport.background
        if conv.cancel_requested and api is not None:  # Esc: the server stops too
            try:
                await asyncio.wait_for(api.cancel(str(pending.get("response_id"))), conv.settings.connect_timeout)
            except (RivuletError, TimeoutError):
                pass
        raise
    finally:
        conv.cancel_requested = False
    return None
