"""Where a workspace's checkpoints live, and how one is taken.

`<data dir>/rivulet/checkpoints/<hash of the workspace path>/` (never inside the
workspace, 0700): `objects/` (objects.py), `state.json` (the last walk, with digests,
so the next walk reads only the files whose stat changed), `turns/<seq>.json` (one per
turn that ran a tool: what it changed, both sides), `journal.json` while a restore runs
(restore.py), `lock` (one process at a time changes this directory) and `turn.lock`
(turn_lock.py: one rivulet at a time runs tools or restores in the workspace).

A turn whose checkpoint fails (a full disk) leaves nothing behind: the objects its walks
stored that nothing names are removed (`prune`), and a `failed` record says why, so that
`rivulet undo` can say "turn N has no checkpoint: why" (issue 36).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rivulet.core.checkpoints.limits import MB as MB
from rivulet.core.checkpoints.limits import CheckpointLimits as CheckpointLimits
from rivulet.core.checkpoints.objects import Objects, StoreWriteError
from rivulet.core.checkpoints.place import default_root as default_root
from rivulet.core.checkpoints.place import store_dir
from rivulet.core.checkpoints.walk import PathEntry, Walk, walk

FAILED = "failed"  # a turn's record without a checkpoint: `why` says why


@dataclass
class PathChange:
    path: str
    before: PathEntry | None
    after: PathEntry | None

    def what(self) -> str:
        if self.before is None:
            return "created"
        if self.after is None:
            return "deleted"
        if self.before.kind != self.after.kind:
            return f"{self.before.kind} -> {self.after.kind}"
        if self.before.mode != self.after.mode and self.before.same_content_ignoring_mode(self.after):
            return f"mode {self.before.mode:o} -> {self.after.mode:o}"
        return "modified"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "before": self.before.to_json() if self.before else None,
                "after": self.after.to_json() if self.after else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PathChange:
        b, a = data.get("before"), data.get("after")
        return cls(str(data["path"]), PathEntry.from_json(b) if b else None, PathEntry.from_json(a) if a else None)


@dataclass
class Checkpoint:
    seq: int
    session: str
    turn: int
    time: float
    changes: list[PathChange] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path: why its content was not kept"
    commands: list[str] = field(default_factory=list)  # every command the turn ran
    # "undone" after /undo; "dropped": undone, then a new turn came; FAILED: no checkpoint (`why`)
    status: str = "applied"
    started: float = 0.0  # when its walk before ran (the turn's changes came after it)
    why: str = ""  # a FAILED turn's reason

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "session": self.session, "turn": self.turn, "time": self.time,
                "changes": [c.to_json() for c in self.changes], "skipped": self.skipped,
                "commands": self.commands, "status": self.status, "started": self.started, "why": self.why}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Checkpoint:
        end = float(data["time"])
        return cls(int(data["seq"]), str(data["session"]), int(data["turn"]), end,
                   [PathChange.from_json(c) for c in data.get("changes") or []],
                   [str(s) for s in data.get("skipped") or []], [str(c) for c in data.get("commands") or []],
                   str(data.get("status") or "applied"), float(data.get("started") or end), str(data.get("why") or ""))


@dataclass
class WorkspaceSnapshot:
    walk: Walk
    not_kept: dict[str, str] = field(default_factory=dict)  # path -> why its content was not kept
    taken: float = 0.0  # when the walk began


def write_json(path: Path, data: Any) -> None:
    """Atomically: a temporary file, fsync, rename, fsync of the directory."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        try:
            view = memoryview(json.dumps(data, separators=(",", ":")).encode())
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half file behind
        raise
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _size(n: int) -> str:
    return f"{n / MB:.1f} MB" if n >= MB else f"{n / 1024:.0f} KB"


def why_failed(exc: OSError) -> str:
    """Why a turn has no checkpoint, in words (its store could not be written)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk of the checkpoint store is full ({exc.strerror or exc})"
    return f"the checkpoint store could not be written ({exc.strerror or exc})"


class CheckpointStore:
    def __init__(self, workspace: Path, root: Path | None = None, limits: CheckpointLimits | None = None) -> None:
        self.workspace = workspace.resolve()
        self.dir = store_dir(self.workspace, root)
        self.limits = limits or CheckpointLimits()
        self.objects = Objects(self.dir / "objects")
        self.turns_dir = self.dir / "turns"
        self.journal = self.dir / "journal.json"
        # Each turn's record read its checkpoints twice, every file parsed again (up to
        # `keep`): 2 reads at turn 1, 200 from turn 100 on, a cost that grew through a long
        # chat. Parsed records are kept by file name, valid while the file's (inode, mtime,
        # size) stays: a rewrite is a rename of a new file (write_json), in this process or
        # another (`rivulet undo`), so it is a new inode and read again.
        self._parsed: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}

    # ---- the directory ------------------------------------------------------------------

    def _ensure(self) -> None:
        from rivulet.core.store.session import private_dir

        private_dir(self.turns_dir)
        marker = self.dir / "workspace"  # whose folder this is, for a person looking (0600, as every file here)
        if not marker.exists():
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, os.fsencode(self.workspace) + b"\n")
            finally:
                os.close(fd)

    @contextlib.contextmanager
    def locked(self, recover_first: bool = True) -> Iterator[None]:
        """This workspace's store, for one process at a time (a second chat waits for the
        few moments a walk or a restore holds it; a whole turn holds turn_lock.py's)."""
        self._ensure()
        fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if recover_first and self.journal.exists():  # a restore was killed: finish it (before or after)
                from rivulet.core.checkpoints.restore import recover

                recover(self)
            yield
        finally:
            os.close(fd)

    # ---- walks --------------------------------------------------------------------------

    def _state(self) -> dict[str, PathEntry]:
        try:
            data = json.loads((self.dir / "state.json").read_bytes())
            return {k: PathEntry.from_json(v) for k, v in data.items()}
        except (OSError, ValueError, TypeError, KeyError):
            return {}

    def snapshot(self) -> WorkspaceSnapshot:
        """Walk the workspace and keep the content of every file whose stat changed since
        the last walk (within the caps). Call it locked. A content the store has no room
        for is not kept (said, as for a cap). OSError: the store's own record could not be
        written, even after what only the last walk named was removed (the caller then
        removes what this walk stored: `prune`)."""
        known = self._state()
        taken = time.time()
        found = walk(self.workspace, self.limits.max_entries, self._own_dirs())
        snap = WorkspaceSnapshot(found, taken=taken)
        if found.too_many:
            return snap
        budget = self.limits.turn_bytes
        root = str(self.workspace)
        dirty = found.entries.keys() != known.keys()  # the state is rewritten only when something moved
        for rel, entry in found.entries.items():
            old = known.get(rel)
            if entry.kind != "file":
                dirty = dirty or entry != old
                continue
            if old is not None and old.digest is not None and entry.same_stat(old):
                found.entries[rel] = entry.with_digest(old.digest)  # pruning keeps every object the state names
                continue
            dirty = True
            if entry.size > self.limits.file_bytes:
                snap.not_kept[rel] = (f"{_size(entry.size)}, over the cap of {_size(self.limits.file_bytes)} per file "
                                      "(checkpoint_file_max_mb)")
                continue
            if entry.size > budget:
                snap.not_kept[rel] = (f"over the cap of {_size(self.limits.turn_bytes)} per checkpoint "
                                      "(checkpoint_turn_max_mb)")
                continue
            try:
                stored = self.objects.put_file(os.path.join(root, rel), min(self.limits.file_bytes, budget))
            except StoreWriteError as exc:  # the store's disk, not the file
                snap.not_kept[rel] = why_failed(exc)
                continue
            except OSError:
                stored = None  # unreadable, or gone: not kept
            if stored is None:
                snap.not_kept[rel] = "could not be read, or changed while it was read"
                continue
            budget -= stored[1]
            found.entries[rel] = entry.with_digest(stored[0])
        if dirty:
            state = {k: v.to_json() for k, v in found.entries.items()}
            try:
                write_json(self.dir / "state.json", state)
            except OSError:
                # A full store: the contents only the last walk named (files gone or changed since)
                # go first. Were they kept, a workspace that shrank to fit would never fit again.
                self.prune(found.entries)
                write_json(self.dir / "state.json", state)
        return snap

    def _own_dirs(self) -> frozenset[str]:
        """rivulet's own directories inside the workspace (a store or sessions kept there):
        never walked, or every checkpoint would copy the last one."""
        from rivulet.core.config_sources import sessions_dir

        out = set()
        for own in (self.dir.parent, sessions_dir()):
            try:
                rel = Path(os.path.realpath(own)).relative_to(self.workspace)
            except ValueError:
                continue
            if rel.parts:
                out.add(rel.as_posix())
        return frozenset(out)

    # ---- checkpoints --------------------------------------------------------------------

    def record(self, session: str, turn: int, before: WorkspaceSnapshot, after: WorkspaceSnapshot,
               commands: list[str]) -> Checkpoint | None:
        """The checkpoint of one turn (None when it changed nothing and ran no command)."""
        changes = diff(before.walk, after.walk)
        if not changes and not commands:
            return None
        skipped = []
        for c in changes:
            why = before.not_kept.get(c.path) if c.before is not None and c.before.kind == "file" else None
            if why is None and c.before is not None and c.before.kind == "file" and c.before.digest is None:
                why = "its content before the turn was not kept"
            if why:
                skipped.append(f"{c.path}: {why}")
        cps = self.checkpoints()
        for cp in cps:  # undone turns can no longer be redone: the workspace went another way
            if cp.status == "undone":
                cp.status = "dropped"
                self.save(cp)
        seq = max((cp.seq for cp in cps), default=0) + 1
        cp = Checkpoint(seq, session, turn, time.time(), changes, skipped, commands, started=before.taken)
        self.objects.sync({e.digest for c in changes for e in (c.before, c.after) if e is not None and e.digest})
        self.save(cp)
        self.prune(after.walk.entries, [*cps, cp])  # the list just read: not listed and stat'ed again
        return cp

    def record_failure(self, session: str, turn: int, why: str, commands: list[str]) -> None:
        """A turn that has no checkpoint, and why (what `rivulet undo` says of it). Call it
        locked."""
        cps = self.checkpoints()
        for cp in cps:  # as for a checkpoint: the workspace went another way, an undone turn stays undone
            if cp.status == "undone":
                cp.status = "dropped"
                self.save(cp)
        seq = max((cp.seq for cp in cps), default=0) + 1
        self.save(Checkpoint(seq, session, turn, time.time(), commands=commands, status=FAILED, why=why))

    def save(self, cp: Checkpoint) -> None:
        write_json(self.turns_dir / f"{cp.seq:08d}.json", cp.to_json())

    def checkpoints(self, session: str | None = None) -> list[Checkpoint]:
        """Oldest first."""
        out: list[Checkpoint] = []
        if not self.turns_dir.is_dir():
            return out
        seen: set[str] = set()
        for p in sorted(self.turns_dir.glob("*.json")):
            seen.add(p.name)
            try:
                cp = Checkpoint.from_json(self._record(p))  # a new object each time: callers change them
            except (OSError, ValueError, TypeError, KeyError):
                continue
            if session is None or cp.session == session:
                out.append(cp)
        for gone in self._parsed.keys() - seen:
            del self._parsed[gone]
        return out

    def _record(self, path: Path) -> dict[str, Any]:
        """One checkpoint file's JSON, parsed only if it changed since it was last read."""
        st = path.stat()
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        known = self._parsed.get(path.name)
        if known is not None and known[0] == stamp:
            return known[1]
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict):
            raise ValueError("a checkpoint record is an object")
        self._parsed[path.name] = (stamp, data)
        return data

    def prune(self, state: dict[str, PathEntry] | None = None, cps: list[Checkpoint] | None = None) -> list[int]:
        """Drop the oldest checkpoints past the count or size limit, then every object no
        checkpoint and no state names. Call it locked. Returns the dropped checkpoints.
        `cps`: every checkpoint, oldest first, when the caller has just read them."""
        cps = self.checkpoints() if cps is None else cps
        state = self._state() if state is None else state
        dropped: list[int] = []
        # An object's size is its file's size, which every entry holds: no object is stat'ed.
        sizes = {e.digest: e.size for e in state.values() if e.digest}
        keep_digests = set(sizes)

        def used(cp: Checkpoint) -> set[str]:
            found: set[str] = set()
            for c in cp.changes:
                for e in (c.before, c.after):
                    if e is not None and e.digest:
                        sizes[e.digest] = e.size
                        found.add(e.digest)
            return found

        while len(cps) > self.limits.keep:
            dropped.append(cps.pop(0).seq)

        def total() -> int:
            return sum(sizes[d] for d in keep_digests.union(*(used(cp) for cp in cps)))

        while len(cps) > 1 and total() > self.limits.total_bytes:
            dropped.append(cps.pop(0).seq)
        for seq in dropped:
            (self.turns_dir / f"{seq:08d}.json").unlink(missing_ok=True)
        live = keep_digests.union(*(used(cp) for cp in cps))
        for digest in self.objects.all():
            if digest not in live:
                self.objects.remove(digest)
        self.objects.sweep_temps()
        return dropped


def diff(before: Walk, after: Walk) -> list[PathChange]:
    """What changed between two walks. A path only one walk saw because the other's
    `.gitignore` left it out is not a change (un-ignoring `node_modules` must not make an
    undo delete it)."""
    out = []
    for rel in sorted(before.entries.keys() | after.entries.keys()):
        b, a = before.entries.get(rel), after.entries.get(rel)
        if a is None and b is not None and after.ignores(rel, b.kind == "dir"):
            continue
        if b is None and a is not None and before.ignores(rel, a.kind == "dir"):
            continue
        if a is not None and b is not None:
            if a.kind == "dir" and b.kind == "dir" and a.mode == b.mode:
                continue
            if a.same_content(b) or (a.digest is None and b.digest is None and a.same_stat(b)):
                continue
        out.append(PathChange(rel, b, a))
    return out
