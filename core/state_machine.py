"""The two-level response state machine: `consume_response`.

A response is a lifecycle (Created -> Completed) wrapping item lifecycles
(Item Added -> deltas -> Item Done). Deltas only ever reach the sink's transient
methods; only Item Done (or Completed's `output`, see below) commits.

The rules, including how real streams that break the naive contract are handled:

1. Items are identified by their `id`, or by `output_index` when they have none.
   `output_index` is *not* trusted for identity: gpt-oss sends -1 in an item's
   deltas and a different index at its done.
2. *Strictness applies to items that stream deltas.* The newest added item is the
   active item. The first delta (or part/done-of-text event) an item receives makes
   it the **streaming** item. At most one item streams at a time:
   - a delta when no item is open                      -> ProtocolError
   - a delta for an item that is not open              -> ProtocolError
   - a delta for item B while item A is streaming      -> ProtocolError
   - Item Added while another item is streaming        -> ProtocolError
   Items that never stream (hosted tools: several `mcp_list_tools` at once,
   web_search_call) may be open together, and alongside one streaming item.
3. An Item Done for an item that was never added (gpt-oss function calls) is
   announced and committed in one step.
4. The same item added twice while open, done twice, or a delta after its done
   -> ProtocolError. A second `response.created` in one stream -> ProtocolError.
5. `response.created` is optional (a resumed background stream starts at
   `response.queued`).
6. Completed's `output` is the source of truth for what the response produced:
   items it lists that were not done (a missing Item Done) are committed from it,
   open items it does not list are discarded as never committed, and the history
   of the response is put in `output` order. An empty `output` (some recordings
   scrub it) leaves the done items as they are.
7. A stream that ends before Completed -> StreamError. On any error, open items
   are discarded (their transient state is not history); committed items stay.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable
from dataclasses import dataclass, field
from typing import Any

from . import items as it
from .errors import ProtocolError, StreamError
from .events import (
    Completed,
    Created,
    Delta,
    DeltaDone,
    Failure,
    ItemProgress,
    OutputItemAdded,
    OutputItemDone,
    PartAdded,
    PartDone,
    ResponseEvent,
    ResponseProgress,
)

log = logging.getLogger(__name__)

Transient = Delta | PartAdded | PartDone | DeltaDone


class SamplingSink:
    """Where the state machine sends its decisions. The default does nothing; the
    sampling consumer publishes to the bus and commits to history."""

    # `key` identifies the item for its whole life (see rule 1); items are the
    # server's dicts, untouched.
    async def begin_item(self, key: str, item: it.Item) -> None: ...

    async def transient(self, key: str, event: Transient) -> None: ...

    async def progress(self, key: str | None, event: ItemProgress) -> None: ...

    async def finish_transient(self, key: str) -> None: ...

    async def commit(self, key: str, item: it.Item, *, backfilled: bool = False) -> None: ...

    async def discard(self, key: str, reason: str) -> None: ...

    async def completed(self, event: Completed, order: list[str]) -> None: ...


@dataclass
class SamplingResult:
    response_id: str | None
    usage: dict[str, Any] | None
    end_turn: bool | None
    needs_follow_up: bool
    last_message: str | None
    committed: list[it.Item] = field(default_factory=list)
    pending_calls: list[it.Item] = field(default_factory=list)


@dataclass(slots=True)
class _Open:
    key: str
    item: it.Item
    output_index: int | None
    streamed: bool = False


class _Machine:
    def __init__(self, sink: SamplingSink) -> None:
        self.sink = sink
        self.open: dict[str, _Open] = {}
        self.active: _Open | None = None  # newest added; streaming once .streamed
        self.committed: dict[str, it.Item] = {}  # key -> item, in commit order
        self.seen_created = False
        self.last_message: str | None = None

    # ---- events ---------------------------------------------------------------------

    async def added(self, ev: OutputItemAdded) -> None:
        key = it.item_key(ev.item, ev.output_index)
        if key in self.open:
            raise ProtocolError(f"item {key} added twice")
        if key in self.committed:
            raise ProtocolError(f"item {key} added again after its output_item.done")
        if self.active is not None and self.active.streamed:
            raise ProtocolError(f"overlapping active items: {key} added while {self.active.key} is streaming")
        entry = _Open(key, ev.item, ev.output_index)
        self.open[key] = entry
        self.active = entry
        await self.sink.begin_item(key, ev.item)

    async def transient(self, ev: Transient) -> None:
        target = self._target(ev.item_id, ev.output_index)
        if target is None:
            if not self.open:
                raise ProtocolError(f"{_describe(ev)} with no active item")
            raise ProtocolError(f"{_describe(ev)} for item {ev.item_id or ev.output_index} which is not active")
        streaming = self.active if self.active is not None and self.active.streamed else None
        if streaming is not None and streaming is not target:
            raise ProtocolError(f"{_describe(ev)} for item {target.key} while item {streaming.key} is streaming")
        target.streamed = True
        self.active = target
        await self.sink.transient(target.key, ev)

    async def progress(self, ev: ItemProgress) -> None:
        target = self._target(ev.item_id, ev.output_index)
        key = target.key if target else (ev.item_id if ev.item_id in self.committed else None)
        if key is None:
            log.debug("progress event %s for unknown item %s", ev.event_type, ev.item_id)
        await self.sink.progress(key, ev)

    async def done(self, ev: OutputItemDone) -> None:
        key = it.item_key(ev.item, ev.output_index)
        if key in self.committed:
            raise ProtocolError(f"item {key} done twice")
        entry = self.open.pop(key, None)
        if entry is None and ev.output_index is not None:
            # Added without an id, done with one: match on the index it was added at.
            entry = self.open.pop(f"#{ev.output_index}", None)
        if entry is None:
            # Done-only item (rule 3): announce and commit at once.
            await self.sink.begin_item(key, ev.item)
        else:
            key = entry.key
            if entry is self.active:
                await self.sink.finish_transient(key)
                self.active = None
        await self._commit(key, ev.item)

    async def completed(self, ev: Completed) -> SamplingResult:
        output = [o for o in (ev.response.get("output") or []) if isinstance(o, dict)]
        by_key = {it.item_key(o, i): (i, o) for i, o in enumerate(output)}
        # Open items: commit from output if listed there, else discard (rule 6).
        for key, entry in list(self.open.items()):
            del self.open[key]
            if entry is self.active:
                await self.sink.finish_transient(key)
                self.active = None
            if key in by_key:
                await self._commit(key, by_key[key][1], backfilled=True)
            else:
                await self.sink.discard(key, "not in response.completed output")
        # Items that only the final output lists.
        for key, (_, item) in by_key.items():
            if key not in self.committed:
                await self.sink.begin_item(key, item)
                await self._commit(key, item, backfilled=True)
        order = [k for k in by_key] + [k for k in self.committed if k not in by_key]
        await self.sink.completed(ev, order)
        committed = [self.committed[k] for k in order if k in self.committed]
        pending = _pending_calls(committed)
        return SamplingResult(
            response_id=ev.response_id,
            usage=ev.usage,
            end_turn=ev.end_turn,
            needs_follow_up=bool(pending) or ev.end_turn is False,
            last_message=self.last_message,
            committed=committed,
            pending_calls=pending,
        )

    async def abort(self, reason: str) -> None:
        for entry in list(self.open.values()):
            await self.sink.discard(entry.key, reason)
        self.open.clear()
        self.active = None

    # ---- helpers --------------------------------------------------------------------

    def _target(self, item_id: str | None, output_index: int | None) -> _Open | None:
        if item_id:
            return self.open.get(item_id)
        if output_index is not None:
            for entry in self.open.values():
                if entry.output_index == output_index:
                    return entry
        # Neither id nor a matching index (llama.cpp sends neither on some events).
        if len(self.open) == 1:
            return next(iter(self.open.values()))
        return self.active if self.active is not None and self.active.streamed else None

    async def _commit(self, key: str, item: it.Item, *, backfilled: bool = False) -> None:
        self.committed[key] = item
        text = it.message_text(item)
        if text is not None and item.get("role", "assistant") == "assistant":
            self.last_message = text
        await self.sink.commit(key, item, backfilled=backfilled)


def _pending_calls(committed: list[it.Item]) -> list[it.Item]:
    """Client-side calls of this response without an output in it."""
    answered = {it.call_id(i) for i in committed if it.is_output(i)}
    return [i for i in committed if it.is_call(i) and it.call_id(i) not in answered]


def _describe(ev: Transient) -> str:
    return f"{type(ev).__name__}({ev.kind.value})"


async def consume_response(events: AsyncIterable[ResponseEvent], sink: SamplingSink | None = None) -> SamplingResult:
    """Drive one response through the state machine; return at `response.completed`.

    `events` must already have failures raised (see `stream.response_events`); a
    `Failure` reaching here is raised as its error all the same.
    """
    machine = _Machine(sink or SamplingSink())
    try:
        async for ev in events:
            match ev:
                case Delta() | PartAdded() | PartDone() | DeltaDone():
                    await machine.transient(ev)
                case OutputItemAdded():
                    await machine.added(ev)
                case OutputItemDone():
                    await machine.done(ev)
                case ItemProgress():
                    await machine.progress(ev)
                case Created():
                    if machine.seen_created or machine.committed or machine.open:
                        raise ProtocolError("a second response.created in one stream")
                    machine.seen_created = True
                case ResponseProgress():
                    pass
                case Completed():
                    return await machine.completed(ev)
                case Failure():
                    raise ev.error
        raise StreamError("stream closed before response.completed")
    except BaseException as exc:
        await machine.abort(f"stream ended: {type(exc).__name__}")
        raise
