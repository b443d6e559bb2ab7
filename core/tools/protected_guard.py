"""Around a sandboxed command: the protected paths before it, and what it did to them.

`Guard` is one session's: its walks remember every protected path they found, so that a
walk cut short (more than MAX_ENTRIES names, say a flood a command left) still binds
them read-only and compares them. What such a walk could not list cannot be checked,
so it fails closed: `unchecked` is the reason the command's own question carries (it
asks under every policy but `never-ask`); a command that leaves the workspace too large
to walk is asked about afterwards. Binding the unlisted folders read-only instead would
need a mount for each (tens of thousands after a flood of folders) and would break
ordinary writes in a large repository without a word.

After the command, the question is the one a patch touching a protected path gets (it
asks under every policy but `never-ask`, and "always" answers only this once): the
paths, why each is protected and what is in them now. Kept: the model is told. Not kept
(or stopped): the changes are undone and the model is told what was undone, so that it
does not try the same thing again unasked.

Commands at once (subagents, issue 41): one `Guard` serves a conversation's router and its
subagents' routers, and each command is a `Watch` from its walk before to its settle. The
settles take turns (the walk after, the question, the undo), and what one settle decided
(kept, or undone) is not asked about again by a command whose walk before came earlier,
while it is still as decided: a command that started while a planted path existed would
otherwise find it "removed" and, told no, write it back. What a command finds may have
been written by another one running at the same time: the question and the model's note
then say so and name them, since rivulet cannot tell which did it. A command run outside
the sandbox (asked, never settled) is named too, while it runs and after.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from rivulet.core import items as it
from rivulet.core.tools import protected_snapshot
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.protected_snapshot import KEEP_TOTAL, Change, Entry, Memory, Snapshot, compare, read_entry, take
from rivulet.core.tools.protected_undo import undo
from rivulet.core.tools.turn_diff import file_diff
from rivulet.core.turn.bus import EventBus, Notice
from rivulet.core.turn.tool_api import StopTurn

_SHOWN_BYTES = 64 * 1024  # of one file's new content, in the question
_SHOWN_FILES = 20
_SHOWN_AT_ONCE = 3  # the commands running at the same time named in a question
_LABEL_CHARS = 80


@dataclass
class Watch:
    """One sandboxed command (or MCP call), from its walk before to its settle."""

    token: int  # when its walk before was taken (the guard's clock)
    label: str  # the command, as the user knows it
    before: Snapshot
    at_once: dict[int, str] = field(default_factory=dict)  # other watches' tokens -> labels, while both ran


@dataclass
class _Decided:
    """A settle's decision on one path: when, and the state it left (path -> entry)."""

    at: int
    state: dict[str, Entry]


class Guard:
    """The workspace's protected paths for one session: each walk, with what earlier ones found."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.patterns: tuple[str, ...] = ()
        self.memory = Memory()
        self.running: dict[int, Watch] = {}
        self.settling = asyncio.Lock()  # one settle at a time: its walk after, question and undo
        self.decided: dict[str, _Decided] = {}
        self.unsettled: set[int] = set()  # ended watches no settle looked at (commands outside the sandbox)
        self._clock = itertools.count(1)

    def take(self, patterns: tuple[str, ...] | None = None) -> Snapshot:
        """`patterns`: the setting now (hooks add theirs); the walk after a command uses those before it."""
        if patterns is not None:
            self.patterns = patterns
        return take(self.root, self.patterns, self.memory)

    def begin(self, label: str, patterns: tuple[str, ...] | None = None) -> Watch:
        """The walk before a command; it runs until `end`."""
        return self._start(Watch(next(self._clock), label, self.take(patterns)))

    def beside(self, label: str) -> Watch:
        """A command outside the sandbox (no walk, never settled): named by the settles of
        the commands it ran beside, as one that may have written what they find."""
        watch = self._start(Watch(next(self._clock), label, Snapshot(self.root)))
        self.unsettled.add(watch.token)
        return watch

    def _start(self, watch: Watch) -> Watch:
        for other in self.running.values():
            other.at_once[watch.token] = watch.label
            watch.at_once[other.token] = other.label
        self.running[watch.token] = watch
        return watch

    def end(self, watch: Watch) -> None:
        self.running.pop(watch.token, None)
        if not self.running:
            self.decided.clear()  # every command now starts after those decisions
            self.unsettled.clear()

    def record(self, changes: list[Change], source: Snapshot) -> None:
        """Record what the user decided about `changes`: the state `source` holds of them."""
        at = next(self._clock)
        for change in changes:
            self.decided[change.path] = _Decided(at, _state(source, change.path))

    def written(self, rels: list[str]) -> None:
        """A patch the user approved wrote these protected files (while commands may run):
        as they are now, they are decided."""
        if not self.running:
            return  # (no command's walk before is older than the patch)
        at, budget = next(self._clock), [KEEP_TOTAL]
        for rel in rels:
            entry = read_entry(str(self.root / rel), budget)
            self.decided[rel] = _Decided(at, {} if entry.kind == "absent" else {rel: entry})

    def settled_since(self, watch: Watch, change: Change, after: Snapshot) -> bool:
        """Whether, after `watch`'s walk before, the user decided about this path (another
        settle, or a patch), and it is still as that decision left it: the path or a folder
        holding it was decided, or every file under it was."""
        parts = change.path.split("/")
        for n in range(len(parts), 0, -1):
            rel = "/".join(parts[:n])
            d = self.decided.get(rel)
            if d is not None and d.at > watch.token:
                return _same(d.state, _state(after, rel))
        files = {r: e for r, e in _state(after, change.path).items() if e.kind != "dir"}
        return bool(files) and all((d := self.decided.get(r)) is not None and d.at > watch.token
                                   and _same(d.state, {r: e}) for r, e in files.items())


def _same(was: dict[str, Entry], now: dict[str, Entry]) -> bool:
    return was.keys() == now.keys() and not any(was[r].differs(e) for r, e in now.items())


def _state(snap: Snapshot, rel: str) -> dict[str, Entry]:
    """What `snap` holds of the protected path `rel` and the files under it."""
    return {r: e for r, e in snap.files.items() if r == rel or r.startswith(rel + "/")}


def unchecked(snap: Snapshot) -> list[str]:
    """Why a command must be asked about when the walk was cut short (else nothing)."""
    if not snap.cut:
        return []
    shown = ", ".join(snap.cut[:3]) + (f" and {len(snap.cut) - 3:,} more" if len(snap.cut) > 3 else "")
    return [f"the workspace holds more names than rivulet checks ({snap.names:,} listed, the limit is "
            f"{protected_snapshot.MAX_ENTRIES:,}): in the folders it could not list ({shown}) a command can plant "
            "git hooks, editor tasks or .pth files unseen; the protected paths found before stay read-only"]


async def settle(guard: Guard, watch: Watch, call: it.Item, approvals: ApprovalPolicy, bus: EventBus | None,
                 done: it.Item, accepted: bool = False) -> str:
    """"" when nothing protected changed or the user keeps it; else what was undone.
    `accepted`: the user let the command run knowing the walk was cut short (then a walk
    cut short after it asks only about what it found). One settle at a time."""
    async with guard.settling:
        return await _settle(guard, watch, call, approvals, bus, done, accepted)


async def _settle(guard: Guard, watch: Watch, call: it.Item, approvals: ApprovalPolicy, bus: EventBus | None,
                  done: it.Item, accepted: bool) -> str:
    before = watch.before
    after = guard.take()
    changes = [c for c in compare(before, after) if not guard.settled_since(watch, c, after)]
    unseen = [] if accepted else unchecked(after) or unchecked(before)
    if not changes and not unseen:
        return ""
    at_once = [label for token, label in watch.at_once.items() if token in guard.running or token in guard.unsettled]
    who = "this command" if not at_once else "this command, or a command running at the same time,"
    marks = [f"{c.what} {c.path}" for c in changes]
    title = "keep what the command wrote" + (": " + ", ".join(marks) if marks else " (rivulet could not check it all)")
    request = ApprovalRequest("patch", it.call_id(call) or "", title, detail=_detail(before, changes), files=marks,
                              heading="Keep what the command wrote",
                              reason=(_written_by(at_once) + " wrote these protected paths: yes keeps what it wrote, "
                                      "no undoes it" if changes else
                                      _written_by(at_once) + " left more names than rivulet checks: yes keeps what "
                                      "it wrote, no undoes what rivulet can see (nothing, here)"),
                              protected=[f"{c.path}: {c.why}" if not c.why.startswith(c.path) else c.why
                                         for c in changes] + unseen)
    decision = await approvals.decide(request)
    if decision in (Decision.YES, Decision.ALWAYS):
        guard.record(changes, after)
        return (f"\nNote: {who} changed protected paths (they can make code run later); the user chose to "
                "keep them: " + ", ".join(marks) if marks else
                f"\nNote: {who} left more names in the workspace than rivulet checks for protected paths; "
                "the user chose to keep what it wrote")
    lines = undo(before, changes)
    guard.record(changes, before)  # as undone: as they were before
    text = (f"\n{who[0].upper()}{who[1:]} created or changed protected paths, which can make code run later "
            "(editor tasks, git hooks and settings, virtualenvs, CI workflows, ...). The user did not keep the "
            "changes, so rivulet undid them:\n" + "\n".join(f"- {line}" for line in lines) if lines else
            "\nThe user did not keep what this command wrote; rivulet found nothing to undo.")
    if unseen:
        text += ("\nThe command left more names in the workspace than rivulet checks for protected paths, so "
                 "what it wrote in the folders rivulet could not list was neither checked nor undone. Until "
                 "the workspace is smaller, every command asks first.")
    text += "\nDo not make these changes again in another way; ask the user if they are needed."
    if bus is not None:
        bus.publish(Notice("Undid what a command wrote to protected paths: " + "; ".join(lines) if lines else
                           "A command left more names in the workspace than rivulet checks; nothing it could "
                           "see needed undoing"))
    if decision is Decision.STOP:
        raise StopTurn(with_note(done, text), "you did not keep what a command wrote")
    return text


def _written_by(at_once: list[str]) -> str:
    """Who wrote what a command's settle found: it, or it or one running at the same time."""
    if not at_once:
        return "a sandboxed command"
    shown = [label if len(label) <= _LABEL_CHARS else label[:_LABEL_CHARS - 1] + "…"
             for label in at_once[:_SHOWN_AT_ONCE]]
    more = f" and {len(at_once) - _SHOWN_AT_ONCE} more" if len(at_once) > _SHOWN_AT_ONCE else ""
    return ("this sandboxed command, or one running at the same time (rivulet cannot tell which: "
            + "; ".join(shown) + more + "),")


def with_note(done: it.Item, note: str) -> it.Item:
    """The call's output with `note` after it (a text part, when the output is a list)."""
    if not note:
        return done
    if isinstance(done["output"], list):  # an MCP result with images
        return {**done, "output": [*done["output"], {"type": "input_text", "text": note.lstrip()}]}
    return {**done, "output": str(done["output"]) + note}


def _detail(before: Snapshot, changes: list[Change]) -> str:
    """What is there now, as a diff against what was (each file, then under each directory)."""
    out = []
    for change in changes:
        path = str(before.root / change.path)
        files = _files_under(path) if os.path.isdir(path) and not os.path.islink(path) else [path]
        for file in files:
            rel = os.path.relpath(file, before.root)
            old = before.files.get(rel)
            old_text = old.data.decode("utf-8", "replace") if old is not None and old.data is not None else None
            if os.path.islink(file):
                out.append(f"{rel} -> {os.readlink(file)}\n")
                continue
            out.append(file_diff(rel, old_text, _read_regular(file)) or f"{rel}: {change.what}\n")
    return "".join(out)


def _files_under(path: str) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(path):  # links are not followed
        dirs.sort()
        out += [os.path.join(folder, n) for n in sorted(names)]
        if len(out) >= _SHOWN_FILES:
            break
    return out[:_SHOWN_FILES]


def _read_regular(path: str) -> str | None:
    """A regular file's start; never blocks on a FIFO a command left there."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, _SHOWN_BYTES).decode("utf-8", "replace")
    finally:
        os.close(fd)
