"""The two-level response state machine: `consume_response`.

A response is a lifecycle (Created -> Completed) wrapping item lifecycles
(Item Added -> deltas -> Item Done). Deltas only ever reach the sink's transient
methods; only Item Done (or Completed's `output`, see below) commits.

The guiding rule: **strict where a delta's owner is uncertain, tolerant where it is
certain, and honest about every deviation.** The seed's strictness protects
attribution: a delta must never be drawn in, or committed to, the wrong item.

1. Items are identified by their `id`, or by `output_index` when they have none.
   `output_index` is *not* trusted for identity: gpt-oss sends -1 in an item's
   deltas and a different index at its done (a mismatch is noted).
2. The newest added item is the **live** item: its deltas drive its live pane.
   - A delta that names an open item (`item_id`) has a certain owner: accepted.
   - A new Item Added while another item streams (llama.cpp) ends the earlier item's
     *live* phase: its pane stops growing, it stays open and uncommitted until its
     Item Done or Completed's `output` commits it. Noted.
   - A delta for an item whose live phase ended is accepted (its owner is certain)
     but not drawn; its Item Done carries the whole text. Noted.
   - A delta that names no item goes to the one item its `output_index` or the open
     set leaves possible; when several items could own it -> ProtocolError.
   - A delta for an item never added, or already done -> ProtocolError.
3. An Item Done for an item that was never added (gpt-oss function calls) is
   announced and committed in one step. Noted.
4. The same item added twice while open, done twice -> ProtocolError. A second
   `response.created` in one stream -> ProtocolError.
5. `response.created` is optional (a resumed background stream starts at
   `response.queued`).
6. Completed's `output` is the source of truth for what the response produced:
   items it lists that were not done (a missing Item Done) are committed from it,
   open items it does not list are discarded as never committed, and the history
   of the response is put in `output` order. An empty `output` (some recordings
   scrub it) leaves the done items as they are.
7. `response.incomplete` (max_output_tokens, content_filter) is a final answer: its
   items are committed as for Completed and the result says why it was cut.
8. A stream that ends before Completed -> StreamError. On any error, open items
   are discarded (their transient state is not history); committed items stay.
9. Only the model speaks as the model: an output item in another role (`user`,
   `developer`) or of an input-only type (`function_call_output`, ...) is never drawn
   live, never committed (so never resent as the user's words, nor taken as a tool's
   result): it is noted as a deviation, with the start of its text, once per item.

Every tolerated deviation reaches the sink as a `Deviation` (once per rule and
response; a foreign item, once per item). With `strict=True` each one is a ProtocolError instead, for people who
develop servers.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable
from typing import Any

import msgspec

from rivulet.core import items as it
from rivulet.core.errors import LimitExceeded, MalformedEventError, ProtocolError, RivuletError, StreamError
from rivulet.core.kinds import commit_problem, kind_of
from rivulet.core.protocol.events import (
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


class Deviation(msgspec.Struct, frozen=True):
    """A tolerated departure from the protocol: `rule` names it (stable, for filtering),
    `detail` says what happened in one line, `event` is the wire event type."""

    rule: str
    detail: str
    event: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "detail": self.detail, "event": self.event}


class Limits(msgspec.Struct, frozen=True):
    """Caps on what one response may make us hold. Going past one is a clear,
    non-retryable error; what was committed before it stays."""

    max_items: int = 10_000  # output items in one response
    max_item_chars: int = 16_000_000  # streamed text of one item (all its deltas)


class SamplingSink:
    """Where the state machine sends its decisions. The default does nothing; the
    sampling consumer publishes to the bus and commits to history."""

    # `key` identifies the item for its whole life (see rule 1); items are the
    # server's dicts, untouched.
    async def begin_item(self, key: str, item: it.Item) -> None: ...

    async def transient(self, key: str, event: Transient) -> None: ...

    async def live_ended(self, key: str) -> None:
        """A later item was added while this one streamed: its pane stops growing."""

    async def progress(self, key: str | None, event: ItemProgress) -> None: ...

    async def commit(self, key: str, item: it.Item, *, backfilled: bool = False) -> None: ...

    async def discard(self, key: str, reason: str) -> None: ...

    async def deviation(self, note: Deviation) -> None: ...

    async def completed(self, event: Completed, order: list[str]) -> None: ...


class SamplingResult(msgspec.Struct, dict=True):
    response_id: str | None
    usage: dict[str, Any] | None
    end_turn: bool | None
    needs_follow_up: bool
    last_message: str | None
    committed: list[it.Item] = msgspec.field(default_factory=list)
    answer: it.Item | None = None  # the message whose text is last_message (its sources are the answer's)
    pending_calls: list[it.Item] = msgspec.field(default_factory=list)
    # Why the server cut the response short (response.incomplete), else None.
    incomplete: str | None = None
    deviations: list[Deviation] = msgspec.field(default_factory=list)
    dropped: list[str] = msgspec.field(default_factory=list)  # malformed items left out, one line each


class _Open(msgspec.Struct):
    key: str
    item: it.Item
    output_index: int | None
    live: bool = True  # False once a later item was added while this one streamed
    chars: int = 0
    foreign: str | None = None  # why it is not the model's own (rule 9): never committed


class _Machine:
    def __init__(self, sink: SamplingSink, strict: bool, limits: Limits) -> None:
        self.sink = sink
        self.strict = strict
        self.limits = limits
        self.open: dict[str, _Open] = {}
        self.streaming: _Open | None = None  # the item the last drawn delta belonged to
        self.committed: dict[str, it.Item] = {}  # key -> item, in commit order
        self.seen_created = False
        self.last_message: str | None = None
        self.answer: it.Item | None = None
        self.deviations: list[Deviation] = []
        self._noted: set[str] = set()
        self.refused: set[str] = set()  # keys of foreign items (rule 9) and of malformed ones, dropped
        self.dropped: list[str] = []  # what was dropped as malformed, one line each
        self.hosted: set[str] = set()  # call_ids of calls the server ran itself: their outputs are its own
        self.items_seen = 0

    async def note(self, rule: str, detail: str, event: str, once: str | None = None) -> None:
        """Record a tolerated deviation (once per rule in a response, or per `once`), or,
        when strict, refuse it."""
        if self.strict:
            raise ProtocolError(f"{detail} (strict protocol: {rule})")
        once = once or rule
        if once in self._noted:
            return
        self._noted.add(once)
        note = Deviation(rule, detail, event)
        self.deviations.append(note)
        log.info("protocol deviation %s: %s", rule, detail)
        await self.sink.deviation(note)

    # ---- events ---------------------------------------------------------------------

    async def added(self, ev: OutputItemAdded) -> None:
        key = it.item_key(ev.item, ev.output_index)
        if key in self.open:
            raise ProtocolError(f"item {key} added twice")
        if key in self.committed:
            raise ProtocolError(f"item {key} added again after its output_item.done")
        self._count_item()
        if ev.output_index is None:
            await self.note("no_output_index", f"output_item.added for {key} has no output_index",
                            "response.output_item.added")
        live = self.streaming
        if live is not None and live.live and live.key in self.open:
            await self.note("overlapping_items", f"{key} added while {live.key} is streaming; "
                            f"{live.key} stays open until its output_item.done", "response.output_item.added")
            live.live = False
            await self.sink.live_ended(live.key)
        entry = _Open(key, ev.item, ev.output_index, foreign=self._foreign(ev.item))
        self.open[key] = entry
        if entry.foreign is None:  # a foreign item gets no live pane: nothing of it is drawn as the model's
            await self.sink.begin_item(key, ev.item)

    async def transient(self, ev: Transient) -> None:
        target = self._owner(ev)
        # The wire type's name is only for notes: built when one is written, not per delta.
        if (ev.item_id and ev.output_index is not None and target.output_index is not None
                and ev.output_index != target.output_index):
            await self.note("output_index_mismatch", f"{_event_type(ev)} for {target.key} says output_index "
                            f"{ev.output_index}, the item was added at {target.output_index}", _event_type(ev))
        if type(ev) is Delta:
            target.chars += len(ev.delta)
            if target.chars > self.limits.max_item_chars:
                raise LimitExceeded(f"item {target.key} streamed more than {self.limits.max_item_chars:,} "
                                    "characters (max_item_chars)")
        if target.foreign is not None:
            return  # counted (its limit holds), never drawn
        if not target.live:
            await self.note("delta_after_live_ended", f"{_event_type(ev)} for {target.key} after a later item "
                            "was added; accepted (it names its item), shown when the item is done", _event_type(ev))
            return
        streaming = self.streaming
        if streaming is not None and streaming is not target and streaming.live and streaming.key in self.open:
            await self.note("interleaved_items", f"{_event_type(ev)} for {target.key} while {streaming.key} is "
                            "streaming; accepted (it names its item)", _event_type(ev))
        self.streaming = target
        await self.sink.transient(target.key, ev)

    async def progress(self, ev: ItemProgress) -> None:
        target = self._find(ev.item_id, ev.output_index)
        key = target.key if target else (ev.item_id if ev.item_id in self.committed else None)
        if key is None:
            log.debug("progress event %s for unknown item %s", ev.event_type, ev.item_id)
        await self.sink.progress(key, ev)

    async def done(self, ev: OutputItemDone) -> None:
        key = it.item_key(ev.item, ev.output_index)
        if key in self.committed or key in self.refused:
            raise ProtocolError(f"item {key} done twice")
        entry = self.open.pop(key, None)
        if entry is None and ev.output_index is not None:
            # Added without an id, done with one: match on the index it was added at.
            entry = self.open.pop(f"#{ev.output_index}", None)
        if (entry is not None and entry.foreign) or self._foreign(ev.item):
            if entry is None:
                self._count_item()
            await self._refuse(entry.key if entry is not None else key, ev.item, "response.output_item.done",
                               begun=entry is not None and entry.foreign is None)
            return
        if entry is None:
            # Done-only item (rule 3): announce and commit at once.
            self._count_item()
            await self.note("done_without_added", f"output_item.done for {key} that was never added",
                            "response.output_item.done")
            await self.sink.begin_item(key, ev.item)
        else:
            key = entry.key
            if (ev.output_index is not None and entry.output_index is not None
                    and ev.output_index != entry.output_index):
                await self.note("output_index_mismatch", f"output_item.done for {key} says output_index "
                                f"{ev.output_index}, the item was added at {entry.output_index}",
                                "response.output_item.done")
        await self._commit(key, ev.item)

    async def completed(self, ev: Completed) -> SamplingResult:
        raw = ev.response.get("output")
        output = [o for o in raw if isinstance(o, dict)] if isinstance(raw, list) else []
        by_key = {it.item_key(o, i): (i, o) for i, o in enumerate(output)}
        self.hosted.update(h for o in output if (h := it.hosted_call_id(o)))
        # Open items: commit from output if listed there, else discard (rule 6).
        for key in list(self.open):
            entry = self.open.pop(key)
            if (entry.foreign and self._foreign(entry.item)) or (key in by_key and self._foreign(by_key[key][1])):
                await self._refuse(key, by_key[key][1] if key in by_key else entry.item, "response.completed",
                                   begun=entry.foreign is None)
                continue
            if key in by_key:
                await self.note("committed_from_completed", f"{key} had no output_item.done; committed from "
                                "response.completed's output", "response.completed")
                await self._commit(key, by_key[key][1], backfilled=True)
            else:
                await self.note("open_item_not_in_output", f"{key} was still open and is not in "
                                "response.completed's output; not committed", "response.completed")
                await self.sink.discard(key, "not in response.completed output")
        self.streaming = None
        # Items that only the final output lists.
        for key, (_, item) in by_key.items():
            if key in self.committed or key in self.refused:
                continue
            if self._foreign(item):
                await self._refuse(key, item, "response.completed")
            else:
                await self.sink.begin_item(key, item)
                await self._commit(key, item, backfilled=True)
        order = [k for k in by_key] + [k for k in self.committed if k not in by_key]
        await self.sink.completed(ev, order)
        committed = [self.committed[k] for k in order if k in self.committed]
        # A cut response's calls may be cut too: none of them runs (normalisation
        # answers them "aborted" in the next request).
        pending = [] if ev.incomplete else _pending_calls(committed)
        return SamplingResult(
            response_id=ev.response_id,
            usage=ev.usage,
            end_turn=ev.end_turn,
            needs_follow_up=not ev.incomplete and (bool(pending) or ev.end_turn is False),
            last_message=self.last_message,
            answer=self.answer,
            committed=committed,
            pending_calls=pending,
            incomplete=ev.incomplete,
            deviations=list(self.deviations),
            dropped=list(self.dropped),
        )

    async def abort(self, reason: str) -> None:
        for entry in list(self.open.values()):
            await self.sink.discard(entry.key, reason)
        self.open.clear()
        self.streaming = None

    # ---- helpers --------------------------------------------------------------------

    def _owner(self, ev: Transient) -> _Open:
        """The item a transient event belongs to, or a ProtocolError when it is not
        certain (rule 2)."""
        if ev.item_id:
            entry = self.open.get(ev.item_id)
            if entry is not None:
                return entry
            what = _describe(ev)
            if ev.item_id in self.committed:
                raise ProtocolError(f"{what} for item {ev.item_id} after its output_item.done")
            if not self.open:
                raise ProtocolError(f"{what} for item {ev.item_id} with no active item")
            raise ProtocolError(f"{what} for item {ev.item_id} which was never added")
        if not self.open:
            raise ProtocolError(f"{_describe(ev)} with no active item")
        found = self._find(None, ev.output_index)
        if found is not None:
            return found
        raise ProtocolError(f"{_describe(ev)} names no item and {len(self.open)} items are open: "
                            "its owner is uncertain")

    def _find(self, item_id: str | None, output_index: int | None) -> _Open | None:
        if item_id:
            return self.open.get(item_id)
        if output_index is not None:
            matches = [e for e in self.open.values() if e.output_index == output_index]
            if len(matches) == 1:
                return matches[0]
        # Neither id nor a matching index (llama.cpp sends neither on some events).
        if len(self.open) == 1:
            return next(iter(self.open.values()))
        # Several open: the live streaming item owns it only while no other item
        # could still be streaming (none was cut off by a later Item Added).
        live = self.streaming
        if live is not None and live.key in self.open and all(e.live for e in self.open.values()):
            return live
        return None

    def _foreign(self, item: it.Item) -> str | None:
        """Why `item` is not the model's own (rule 9); a hosted call seen is remembered."""
        kind = item.get("type")
        if (kind == "message" and item.get("role") in (None, "assistant")) or kind == "reasoning":
            return None  # the common case, at once (10,000 items in one response)
        if hosted := it.hosted_call_id(item):
            self.hosted.add(hosted)
        return it.foreign_reason(item, self.hosted)

    async def _refuse(self, key: str, item: it.Item, event: str, begun: bool = False) -> None:
        """A foreign item (rule 9): noted with the start of its text, never committed; a
        live pane it had (added as the model's, done as another's) is taken down."""
        self.refused.add(key)
        if begun:
            await self.sink.discard(key, "not the model's own item")
        text = it.message_text(item)
        if text is None:
            output = item.get("output")
            text = output if isinstance(output, str) else ""
        said = " ".join(text.split())[:160]
        why = self._foreign(item) or "added as another's"
        await self.note("foreign_item", f"output item {key} is {why}: not the model's, so not kept nor "
                        f"resent{': ' + repr(said) if said else ''}", event, once=f"foreign_item:{key}")

    def _count_item(self) -> None:
        self.items_seen += 1
        if self.items_seen > self.limits.max_items:
            raise LimitExceeded(f"the response has more than {self.limits.max_items:,} output items (max_items)")

    async def _commit(self, key: str, item: it.Item, *, backfilled: bool = False) -> None:
        problem = commit_problem(item)
        if problem is not None:
            raise MalformedEventError(f"item {key}: {problem}")
        malformed = kind_of(item).malformed(item)
        if malformed is not None:  # nothing of it to show or send back: dropped, and said by name
            self.refused.add(key)
            await self.sink.discard(key, "malformed: " + malformed)
            name = key if len(key) <= 80 else key[:79] + "…"
            self.dropped.append(f"the server's message {name} was malformed ({malformed}) and was dropped")
            await self.note("malformed_item", f"output item {name} is a message whose "
                            f"{malformed.removeprefix('its ')}: dropped (not shown, kept nor resent)",
                            "response.completed" if backfilled else "response.output_item.done",
                            once=f"malformed:{key}")
            return
        self.committed[key] = item
        text = it.message_text(item)
        if text is not None and item.get("role", "assistant") == "assistant":
            self.last_message, self.answer = text, item
        await self.sink.commit(key, item, backfilled=backfilled)


def _pending_calls(committed: list[it.Item]) -> list[it.Item]:
    """Client-side calls of this response without an output in it."""
    answered = {it.call_id(i) for i in committed if it.is_output(i)}
    return [i for i in committed if it.is_call(i) and it.call_id(i) not in answered]


def _describe(ev: Transient) -> str:
    return f"{type(ev).__name__}({ev.kind.value})"


def _event_type(ev: Transient) -> str:
    kind = ev.kind.value
    if type(ev) is Delta:
        return f"response.{kind}.delta"
    if type(ev) is DeltaDone:
        return f"response.{kind}.done"
    part = {"content": "content_part", "summary": "reasoning_summary_part", "command": "shell_call_command"}[kind]
    return f"response.{part}.{'added' if type(ev) is PartAdded else 'done'}"


async def consume_response(events: AsyncIterable[ResponseEvent], sink: SamplingSink | None = None, *,
                           strict: bool = False, limits: Limits | None = None) -> SamplingResult:
    """Drive one response through the state machine; return at `response.completed`
    (or `response.incomplete`, whose result says why it was cut).

    `events` must already have failures raised (see `stream.response_events`); a
    `Failure` reaching here is raised as its error all the same.
    """
    machine = _Machine(sink or SamplingSink(), strict, limits or Limits())
    event: ResponseEvent | None = None
    try:
        async for event in events:
            match event:
                case Delta() | PartAdded() | PartDone() | DeltaDone():
                    await machine.transient(event)
                case OutputItemAdded():
                    await machine.added(event)
                case OutputItemDone():
                    await machine.done(event)
                case ItemProgress():
                    await machine.progress(event)
                case Created():
                    if machine.seen_created or machine.committed or machine.open:
                        raise ProtocolError("a second response.created in one stream")
                    machine.seen_created = True
                case ResponseProgress():
                    pass
                case Completed():
                    return await machine.completed(event)
                case Failure():
                    raise event.error
        raise StreamError("stream closed before response.completed")
    except RivuletError as exc:
        await machine.abort(f"stream ended: {type(exc).__name__}")
        raise
    except Exception as exc:
        await machine.abort(f"stream ended: {type(exc).__name__}")
        # A wrong-typed field slipped past the wire models: one clear line, never a traceback.
        raise MalformedEventError(f"{_kind_of(event)}: unexpected field types ({type(exc).__name__}: "
                                  f"{str(exc)[:160]})") from exc
    except BaseException as exc:  # cancellation: the user's interrupt
        await machine.abort(f"stream ended: {type(exc).__name__}")
        raise


def _kind_of(event: ResponseEvent | None) -> str:
    return type(event).__name__ if event is not None else "stream"
