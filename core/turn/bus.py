"""A typed async event bus: the sampling consumer publishes, the UI subscribes.

`publish` never waits: each subscriber has its own queue drained by its own task,
so a slow subscriber only delays itself and one that raises is logged and keeps
receiving. `drain()` waits until every subscriber has seen everything published
(the headless printer needs that before the process exits).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import msgspec

from rivulet.core.errors import RivuletError
from rivulet.core.turn.fair_share import GiveWay, next_turn

log = logging.getLogger(__name__)


# ---- UI-level events -------------------------------------------------------------------


# The events are msgspec Structs, not dataclasses: a `@dataclass` compiles its __init__,
# __repr__ and __eq__ at import (~0.5 ms each, 19 classes here: issue 22's exec start),
# where a Struct class is made in C. Same behaviour: positional and keyword fields,
# defaults, equality by fields, unhashable, no other attributes. `type` is a class
# constant, never a field.
class BusEvent(msgspec.Struct):
    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in self.__struct_fields__:
            value = getattr(self, name)
            out[name] = value.to_json() if isinstance(value, RivuletError) else value
        return out


class TurnStarted(BusEvent):
    turn_id: int
    prompt: str
    type: ClassVar[str] = "turn.started"


class ResponseStarted(BusEvent):
    """A sampling request was sent (the first of a turn, a follow-up, or a retry)."""

    turn_id: int
    request: int
    attempt: int
    type: ClassVar[str] = "response.started"


class ItemStarted(BusEvent):
    item: dict[str, Any]
    item_id: str
    type: ClassVar[str] = "item.started"


class ItemDelta(BusEvent):
    item_id: str
    kind: str
    delta: str
    index: int | None = None
    type: ClassVar[str] = "item.delta"


class ItemPart(BusEvent):
    """A new content / reasoning summary part starts in a live item."""

    item_id: str
    kind: str
    index: int | None = None
    type: ClassVar[str] = "item.part"


class ItemProgressed(BusEvent):
    item_id: str | None
    event: str
    # A partial image of image generation (base64, as sent): drawn and saved, never printed
    # whole by exec --json (to_json gives its size).
    image_b64: str | None = None
    image_index: int | None = None
    type: ClassVar[str] = "item.progress"

    def to_json(self) -> dict[str, Any]:
        out = BusEvent.to_json(self)
        if self.image_b64 is not None:
            out["image_b64"] = f"{len(self.image_b64) * 3 // 4} bytes"
        return out


class ItemCompleted(BusEvent):
    """An item was committed to history: `item` is exactly what the server sent."""

    item: dict[str, Any]
    item_id: str
    backfilled: bool = False
    type: ClassVar[str] = "item.completed"


class ItemDiscarded(BusEvent):
    """A live item that will never be committed (stream cut, interrupt)."""

    item_id: str
    reason: str
    type: ClassVar[str] = "item.discarded"


class TurnInterrupted(BusEvent):
    """The user interrupted the turn. `taken_back` is the prompt when the server had
    committed nothing, so the turn was undone (history no longer has it); else None,
    and what was committed is kept."""

    turn_id: int
    taken_back: str | None
    type: ClassVar[str] = "turn.interrupted"


class ItemLiveEnded(BusEvent):
    """A later item was added while this one streamed (llama.cpp): its live pane
    stops growing; the item stays open until its Item Done commits it."""

    item_id: str
    type: ClassVar[str] = "item.live_ended"


class ProtocolDeviation(BusEvent):
    """The server broke the protocol in a way the client tolerated (see
    `state_machine`): `rule` names it, `detail` says what happened."""

    rule: str
    detail: str
    event: str
    type: ClassVar[str] = "protocol.deviation"


class UsageUpdated(BusEvent):
    response_id: str | None
    usage: dict[str, Any] | None
    type: ClassVar[str] = "usage"


class Retrying(BusEvent):
    attempt: int
    max_attempts: int
    delay: float
    error: RivuletError
    # Waiting for a local server that is not up (core/turn/retry_policy.py): the seconds
    # left before rivulet gives up on it, counted down retry by retry; None otherwise.
    gives_up_in: float | None = None
    type: ClassVar[str] = "retrying"


class ErrorOccurred(BusEvent):
    error: RivuletError
    # A failed turn's: what its completed requests used (tokens, dollars), counted as a
    # finished turn's are (/cost, `exec --json`); None for an error outside a turn.
    usage: dict[str, Any] | None = None
    cost: dict[str, Any] | None = None
    type: ClassVar[str] = "error"


class TurnCompleted(BusEvent):
    turn_id: int
    usage: dict[str, Any] | None
    last_message: str | None
    stopped: str | None = None  # why the user stopped the turn early, if they did
    no_answer: str | None = None  # why the last response gave no answer (core/turn/no_answer.py)
    cost: dict[str, Any] | None = None  # tokens, dollars and speed (core/turn/turn_cost.py)
    # The answer's sources: web pages and files it cites (core/hosted_items.py Citation, as JSON)
    sources: list[dict[str, Any]] = msgspec.field(default_factory=list)
    type: ClassVar[str] = "turn.completed"


class ToolOutputDelta(BusEvent):
    """Output of a running tool (a shell command's stdout/stderr), for display only:
    the model gets the captured output in the call's output item."""

    call_id: str
    text: str
    type: ClassVar[str] = "tool.output"


class TurnDiffUpdated(BusEvent):
    """Everything this turn changed in the workspace so far, as one unified diff."""

    diff: str
    files: int
    type: ClassVar[str] = "turn.diff"


class Notice(BusEvent):
    """Something the user should know that is not an error (e.g. a transport fallback)."""

    text: str
    type: ClassVar[str] = "notice"


Handler = Callable[[BusEvent], Awaitable[None] | None]


class _Subscription:
    def __init__(self, bus: EventBus, handler: Handler, types: tuple[type[BusEvent], ...] | None,
                 when: Callable[[BusEvent], bool] | None = None) -> None:
        self.bus = bus
        self.handler = handler
        self.types = types
        self.when = when
        self.queue: asyncio.Queue[BusEvent | None] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._run(), name=f"bus:{handler!r}")

    def offer(self, event: BusEvent) -> None:
        if (self.types is None or isinstance(event, self.types)) and (self.when is None or self.when(event)):
            self.queue.put_nowait(event)

    async def _run(self) -> None:
        while True:
            event = await self.queue.get()
            try:
                if event is None:
                    return
                result = self.handler(event)
                # Most handlers return None: no ABC isinstance check per event for them.
                if result is not None and (asyncio.iscoroutine(result) or isinstance(result, Awaitable)):
                    await result
            except asyncio.CancelledError:
                raise
            except Exception:  # a broken subscriber must not break the stream
                self.bus.errors += 1
                log.exception("bus subscriber %r failed on %s", self.handler, event.type if event else None)
            finally:
                self.queue.task_done()

    def cancel(self) -> None:
        self.queue.put_nowait(None)


class EventBus:
    def __init__(self) -> None:
        self._subs: list[_Subscription] = []
        self.errors = 0  # subscriber exceptions seen, for tests and diagnostics
        # How a turn's reader lets the loop run between slices of a stream that never
        # suspends (core/turn/fair_share.py): a front end may make it wait for its drawing.
        self.give_way: GiveWay = next_turn

    def subscribe(self, handler: Handler, *types: type[BusEvent],
                  when: Callable[[BusEvent], bool] | None = None) -> Callable[[], None]:
        """Call `handler` for every event (or only those of `types`, and only those `when`
        says yes to: checked as the event is published, so the others cost no queueing and
        no task switch). Returns an unsubscribe function. Must be called inside a running
        event loop."""
        sub = _Subscription(self, handler, types or None, when)
        self._subs.append(sub)

        def unsubscribe() -> None:
            if sub in self._subs:
                self._subs.remove(sub)
                sub.cancel()

        return unsubscribe

    def publish(self, event: BusEvent) -> None:
        for sub in self._subs:
            sub.offer(event)

    async def drain(self) -> None:
        """Wait until every subscriber has handled everything published so far."""
        await asyncio.gather(*(sub.queue.join() for sub in list(self._subs)))

    async def close(self) -> None:
        await self.drain()
        for sub in list(self._subs):
            sub.cancel()
        await asyncio.gather(*(sub.task for sub in self._subs), return_exceptions=True)
        self._subs.clear()
