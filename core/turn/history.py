"""Committed history: the ordered complete items of a conversation.

Only complete items enter (user input, Item Done, Completed's backfilled output,
tool outputs), each as the server sent it. The next request's `input` is built from
here after normalisation, so a retry or a follow-up never depends on transient
state.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from rivulet.core import items as it

log = logging.getLogger(__name__)


class HistoryEntry(msgspec.Struct):
    item: it.Item
    segment: str | None = None  # the request that produced it; None for the client's own items
    key: str | None = None  # the state machine's item key (id, else output index)
    seq: int = 0
    time: float = 0.0  # when it was committed (seconds since the epoch)


class Compaction(msgspec.Struct, dict=True):
    """Older history replaced by something smaller (see core/compaction.py). The
    replaced entries stay here, so the inspector can show what was compacted."""

    number: int
    mode: str  # "server" (POST /responses/compact) or "summary" (the model summarised)
    replaced: list[HistoryEntry]  # the entries taken out, oldest first
    added: list[HistoryEntry]  # the entries that took their place, at the front of history
    time: float = 0.0
    summary: str | None = None  # the summary's text (summary mode)

    @property
    def segment(self) -> str:
        return f"compact-{self.number}"


class Branch(msgspec.Struct, dict=True):
    """What a rewind cut off (edit and resend): still readable, no longer sent."""

    at: int  # the history length it was cut back to
    entries: list[HistoryEntry]
    time: float = 0.0


class _Settled(msgspec.Struct):
    """The request input built from the first `count` entries, while history's
    `_changes` is unchanged and entry `count - 1` is still `last`."""

    changes: int
    store: bool
    count: int
    last: HistoryEntry | None
    items: list[it.Item]
    calls: set[str]  # the call ids among those entries
    answered: set[str]  # the ones answered there


# A change to history, as its observers (the session file) see it: ("append", entry),
# ("truncate", length), ("reorder", [keys of the entries, in their new order]),
# ("model", (length, model)): the items from `length` on are made by `model`, or
# ("compact", Compaction): the first `len(replaced)` entries gave way to the `added` ones,
# or ("rewind", Branch): history was cut back to `at` entries to take another branch.
Observer = Callable[[str, Any], None]


class History(msgspec.Struct, dict=True):
    entries: list[HistoryEntry] = msgspec.field(default_factory=list)
    _seq: int = 0
    # Told of every change as it happens, before anyone else hears of it (the session
    # file must hold an item before the UI shows it as committed).
    observers: list[Observer] = msgspec.field(default_factory=list)
    # Which model made which items: (first entry index, model), in order. Reasoning
    # items carry `encrypted_content` only their own model can read (see to_input).
    models: list[tuple[int, str]] = msgspec.field(default_factory=list)
    compactions: list[Compaction] = msgspec.field(default_factory=list)
    branches: list[Branch] = msgspec.field(default_factory=list)
    # Counts every change but an append (to_input's settled part is kept across appends).
    _changes: int = 0
    _input: _Settled | None = None  # see to_input

    def _tell(self, change: str, data: Any) -> None:
        if change != "append":
            self._changes += 1
        for observer in self.observers:
            observer(change, data)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[it.Item]:
        return (e.item for e in self.entries)

    @property
    def items(self) -> list[it.Item]:
        return [e.item for e in self.entries]

    def append(self, item: it.Item, segment: str | None = None, key: str | None = None,
               at: float | None = None) -> HistoryEntry:
        self._seq += 1
        entry = HistoryEntry(item, segment, key, self._seq, time.time() if at is None else at)
        self.entries.append(entry)
        self._tell("append", entry)
        return entry

    def reorder_response(self, segment: str, order: list[str]) -> None:
        """Put one response's items in `order` (item keys, Completed's output order).

        A missing Item Done is backfilled at Completed, after later items were already
        committed; this restores the server's order. The response's items occupy the
        same slots as before, so items around them do not move.
        """
        slots = [i for i, e in enumerate(self.entries) if e.segment == segment]
        if len(slots) < 2:
            return
        rank = {key: n for n, key in enumerate(order)}
        entries = [self.entries[i] for i in slots]
        before = [e.seq for e in entries]
        entries.sort(key=lambda e: (rank.get(e.key or "", len(rank)), e.seq))
        for i, entry in zip(slots, entries, strict=True):
            self.entries[i] = entry
        if [e.seq for e in entries] != before:
            self._tell("reorder", [e.seq for e in self.entries])

    def truncate(self, length: int) -> None:
        """Drop everything after the first `length` entries (an aborted turn's user input)."""
        del self.entries[length:]
        self.models = _clamp_marks(self.models, len(self.entries))
        self._tell("truncate", length)

    def compact(self, count: int, items: list[it.Item], *, mode: str, summary: str | None = None,
                at: float | None = None) -> Compaction:
        """Replace the first `count` entries with `items` (their own segment, keys from
        their ids or their position, so a session replay makes the same entries)."""
        number = len(self.compactions) + 1
        segment = f"compact-{number}"
        when = time.time() if at is None else at
        new = []
        for n, item in enumerate(items):
            self._seq += 1
            item_id = item.get("id")
            key = item_id if isinstance(item_id, str) and item_id else f"{segment}-{n}"
            new.append(HistoryEntry(item, segment, key, self._seq, when))
        old = self.entries[:count]
        in_force = self.model_at(count)
        rest = [(start - count + len(new), model) for start, model in self.models if start > count]
        self.entries[:count] = new
        self.models = _clamp_marks(([(0, in_force)] if in_force else []) + rest, len(self.entries))
        done = Compaction(number, mode, old, new, when, summary)
        self.compactions.append(done)
        self._tell("compact", done)
        return done

    def rewind(self, length: int, at: float | None = None) -> Branch:
        """Cut back to the first `length` entries to go on differently (edit and
        resend); unlike `truncate`, what is cut stays in `branches`."""
        branch = Branch(length, self.entries[length:], time.time() if at is None else at)
        del self.entries[length:]
        self.models = _clamp_marks(self.models, len(self.entries))
        self.branches.append(branch)
        self._tell("rewind", branch)
        return branch

    def set_model(self, model: str, *, record: bool = True) -> None:
        """Items committed from now on are made by `model`. `record=False` sets the
        starting model without telling observers (the session header has it)."""
        if self.models and self.models[-1][1] == model:
            return
        self.models = _clamp_marks([*self.models, (len(self.entries), model)], len(self.entries))
        if record:
            self._tell("model", (len(self.entries), model))

    def model_at(self, index: int) -> str | None:
        """The model that made entry `index` (None: not known)."""
        made = None
        for start, model in self.models:
            if start > index:
                break
            made = model
        return made

    def to_input(self, *, store: bool = False, model: str | None = None, upto: int | None = None) -> list[it.Item]:
        """The normalised `input` of the next request, for `model`.

        Encrypted reasoning (`encrypted_content`) can only be read by the model that
        wrote it: another model rejects the request. So after a model switch the old
        model's reasoning items that carry it are left out; everything else (messages,
        calls, outputs, compaction items) is kept, and the history itself keeps them
        all (switching back sends them again). `upto`: only the first entries."""
        entries = self.entries[:upto]
        # Only after a model switch can an entry be another model's reasoning: asking each
        # entry's model (`model_at`) was a third of building a 240-turn chat's request.
        if model is not None and any(made_by != model for _, made_by in self.models):
            items = [e.item for n, e in enumerate(entries) if not _foreign_reasoning(e.item, self.model_at(n), model)]
            return [_as_input(item, store) for item in normalize(items)]
        if upto is not None:
            return [_as_input(item, store) for item in normalize([e.item for e in entries])]
        # Each request is the whole history: only the entries since the last settled
        # request are normalised again, so a long chat's request costs what a short one did.
        done = self._settled(store)
        rest, settled, calls, answered = _normalize([e.item for e in entries[done.count:]], done.calls, done.answered)
        built = [*done.items, *(_as_input(item, store) for item in rest)]
        if not settled or len(entries) == done.count:
            return built
        self._input = _Settled(self._changes, store, len(entries), entries[-1], built, calls, answered)
        return list(built)  # the caller's own: the kept one is reused by the next request

    def _settled(self, store: bool) -> _Settled:
        """The input already built for a first part of history, if history has only grown
        since (entries added after it change nothing in it; see `_normalize`)."""
        done = self._input
        if (done is None or done.changes != self._changes or done.store != store
                or len(self.entries) < done.count or self.entries[done.count - 1] is not done.last):
            return _Settled(self._changes, store, 0, None, [], set(), set())
        return done


def _foreign_reasoning(item: it.Item, made_by: str | None, model: str) -> bool:
    return item.get("type") == "reasoning" and bool(item.get("encrypted_content")) and made_by is not None \
        and made_by != model


def _clamp_marks(marks: list[tuple[int, str]], length: int) -> list[tuple[int, str]]:
    """Model marks past the end move to it; of several at one index the last wins."""
    out: list[tuple[int, str]] = []
    for start, model in marks:
        start = min(start, length)
        while out and out[-1][0] >= start:
            out.pop()
        if not out or out[-1][1] != model:
            out.append((start, model))
    return out


def normalize(items: list[it.Item]) -> list[it.Item]:
    """Every call has exactly one output; outputs without a call are dropped.

    A call with no output (the turn was interrupted, the stream was cut after the call
    was committed) gets an "aborted" output right after the last item of its response
    run, the way Codex does it, so the API accepts the request.
    """
    return _normalize(items, set(), set())[0]


def _normalize(items: list[it.Item], calls_before: set[str], answered_before: set[str]
               ) -> tuple[list[it.Item], bool, set[str], set[str]]:
    """`normalize` of `items` that follow a settled part of history, whose call ids
    are `calls_before` and answered ones `answered_before` (neither is changed).

    Returns the items, whether they settled too (no call left unanswered and no
    output dropped for want of its call: then nothing appended later can change
    them), and the call ids and answered ids so far."""
    # Hosted calls count as calls here: their server-sent outputs are not orphans.
    calls = calls_before | {cid for i in items if i.get("type") in it.CALL_OUTPUT_TYPES and (cid := it.call_id(i))}
    answered = set(answered_before)
    settled = True
    out: list[it.Item] = []
    for item in items:
        if it.is_output(item):
            cid = it.call_id(item)
            if cid not in calls:
                log.debug("dropping orphan output for call %s", cid)
                settled = False  # its call may still come
                continue
            if cid in answered:
                log.debug("dropping duplicate output for call %s", cid)
                continue
            answered.add(cid)
        elif it.is_call(item) and not it.call_id(item):
            log.debug("dropping a %s with no call_id", item.get("type"))
            continue
        out.append(item)
    missing = [i for i in out if it.is_call(i) and it.call_id(i) not in answered]
    for call in missing:
        settled = False
        pos = out.index(call) + 1
        # Keep parallel calls of one response together: insert after the following calls.
        while pos < len(out) and (it.is_call(out[pos]) or it.is_output(out[pos])):
            pos += 1
        out.insert(pos, it.aborted_output(call))
    return out, settled, calls, answered


def _as_input(item: it.Item, store: bool) -> it.Item:
    """An item as request input. With `store: false` the server keeps nothing, so ids
    would point at nothing: they are left out (reasoning carries its
    `encrypted_content` instead)."""
    if store or "id" not in item or item.get("type") == "mcp_approval_request":
        return item  # an approval request keeps its id: the response names it (approval_request_id)
    clean = copy.copy(item)
    del clean["id"]
    return clean
