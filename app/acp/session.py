"""One editor session: its engine (built by the one assembly), the relay of its bus to
the editor, and the turn it runs. One prompt at a time; `cancel` interrupts the turn as
the chat's Esc does (the running command stopped, nothing half committed)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.app.acp.relay import Relay
from rivulet.core.errors import RivuletError

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate
    from acp.schema import PromptResponse, Usage

    from rivulet.core.engine import Engine
    from rivulet.core.turn.conversation import TurnResult


class Busy(Exception):
    """A second prompt while one runs."""


class AcpSession:
    def __init__(self, session_id: str, engine: Engine, workspace: Path,
                 send: Callable[[SessionUpdate], Awaitable[None]], stop: Callable[[], None] | None = None,
                 terminal: bool = False) -> None:
        self.id, self.engine, self.workspace = session_id, engine, workspace
        self.relay = Relay(send, workspace, terminal)
        self._stop = stop  # the demo server's, if this session has one
        self._turn: asyncio.Future[TurnResult] | None = None
        self.models: list[str] = []  # the models the editor may choose (config_options.py)

    def start(self) -> None:
        self.engine.bus.subscribe(self.relay)
        self.engine.start()

    async def prompt(self, text: str, attachments: list[Any]) -> PromptResponse:
        from acp.schema import PromptResponse

        if self._turn is not None:
            raise Busy
        turn = self._turn = asyncio.ensure_future(self.engine.submit(text, attachments))
        try:
            await asyncio.wait([turn])
        finally:  # (this request cancelled: the connection closed) the turn stops with it
            if not turn.done():
                self.cancel()
                await asyncio.gather(turn, return_exceptions=True)
            self._turn = None
            await self.engine.bus.drain()  # every update of the turn goes before its answer
            await self.relay.flush()
        if turn.cancelled():
            await self.relay.settle("cancelled")
            return PromptResponse(stop_reason="cancelled")
        error = turn.exception()
        if error is not None:
            await self.relay.settle("the turn failed")
            if isinstance(error, RivuletError):
                raise TurnFailed(f"{error.kind}: {error.message}") from None
            raise error
        await self.relay.settle("the turn ended before it ran")
        return PromptResponse(stop_reason="end_turn", usage=usage_of(turn.result().usage))

    def cancel(self) -> None:
        turn = self._turn
        if turn is not None and not turn.done() and not self.engine.interrupt():
            turn.cancel()  # not started yet: the engine has no turn to interrupt

    async def close(self) -> None:
        self.cancel()
        if self._turn is not None:
            await asyncio.gather(self._turn, return_exceptions=True)
        try:
            await self.engine.aclose()
        finally:
            await self.engine.bus.close()
            if self._stop is not None:
                self._stop()


def usage_of(usage: dict[str, Any] | None) -> Usage | None:
    """The turn's tokens as ACP counts them (None: the server sent none)."""
    from acp.schema import Usage

    if not usage:
        return None

    def count(value: Any) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    def part(name: str) -> dict[str, Any]:
        value = usage.get(name)
        return value if isinstance(value, dict) else {}

    details, reasoning = part("input_tokens_details"), part("output_tokens_details")
    return Usage(input_tokens=count(usage.get("input_tokens")), output_tokens=count(usage.get("output_tokens")),
                 total_tokens=count(usage.get("total_tokens")), cached_read_tokens=count(details.get("cached_tokens")),
                 thought_tokens=count(reasoning.get("reasoning_tokens")))


class TurnFailed(Exception):
    """The turn ended in an error (the server's, the network's): its one line."""
