"""Putting a workspace back as a checkpoint had it: plans (what /undo or /redo would do,
and what stands in its way) and restores that are all or nothing.

A restore first keeps the content of every path it will change (the "prior" side), then
writes a journal naming each path's prior and target entry, and only then touches the
workspace. Each file is written to a temporary name and renamed over the old one. When
every path is done the journal is marked done, the checkpoints' statuses are written
and the journal is removed. A kill at any point leaves the journal: the next start of any
command in the workspace (recovery.py), or the next use of the store
(`CheckpointStore.locked`), puts every path back to its prior entry if the journal was not
done (the workspace as before), or only finishes the bookkeeping if it was (the workspace
as after). Every step is idempotent, so a kill during recovery is recovered the same way.

A plan leaves alone what changed since the turn: a path whose content differs from what
the turn left (a user's edit), and a path another session's turn changed since this one
began (two rivulets in one workspace: the other's checkpoint names it), even if its
content is as this turn left it.

Paths are walked from the workspace's descriptor with O_NOFOLLOW: a restore never
writes through a link, whatever a turn left in the workspace.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rivulet.core.checkpoints.objects import StoreWriteError
from rivulet.core.checkpoints.store import FAILED, Checkpoint, CheckpointStore, write_json
from rivulet.core.checkpoints.walk import PathEntry, lstat_entry
from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import one_row
from rivulet.core.tools.turn_diff import file_diff

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Line and paragraph separators: str.splitlines() (the dialog's diff colouring) cuts a row there.
_SEPARATORS = str.maketrans({0x2028: "\\u2028", 0x2029: "\\u2029"})
NOT_UNDONE = ("what it changed outside the workspace (or in .git, or in files .gitignore leaves out) and anything "
              "it sent over the network cannot be undone")


class RestoreError(RivuletError):
    kind = "restore_error"


@dataclass
class Op:
    path: str
    expect: PathEntry | None  # what the path holds if nobody changed it since
    target: PathEntry | None  # what it will hold


@dataclass
class Plan:
    direction: str  # "undo" or "redo"
    checkpoints: list[Checkpoint]
    ops: list[Op] = field(default_factory=list)
    conflicts: dict[str, str] = field(default_factory=dict)  # path -> how it differs from what the turn left
    lost: list[str] = field(default_factory=list)  # "path: why it cannot be put back"
    commands: list[str] = field(default_factory=list)

    @property
    def turns(self) -> list[int]:
        return [cp.turn for cp in self.checkpoints]


@dataclass
class Result:
    changed: list[str]
    left: list[str]  # "path: why it was left as it is"


def shown(name: str) -> str:
    """A path (or a line naming one) for one row of the plan: sanitised, and a newline, tab
    or line separator shown as a code, so a file name never makes a row (a diff line) of its own."""
    return one_row(name).translate(_SEPARATORS)


# ---- which checkpoints ---------------------------------------------------------------------


def choose_session(store: CheckpointStore, ref: str | None, direction: str) -> str | None:
    """The session whose turns `rivulet undo` walks: `ref` (an id or a unique prefix), or
    without it the latest session of the workspace with a turn to undo (its newest applied
    checkpoint is the newest), or to redo (the oldest undone one: redo walks forward).
    None: nothing to undo or redo here. The newest checkpoint's session is not enough: its
    turns may all be undone while an older session's are not."""
    cps = store.checkpoints()
    if ref is None:
        if direction == "undo":  # (a turn without a checkpoint counts: `rivulet undo` says why)
            wanted = [cp for cp in cps[::-1] if cp.status in ("applied", FAILED)]
            return next((cp.session for cp in wanted if cp.changes or cp.status == FAILED),
                        wanted[0].session if wanted else None)
        return next((cp.session for cp in cps if cp.status == "undone"), None)
    ids = list(dict.fromkeys(cp.session for cp in cps[::-1]))
    matches = [s for s in ids if s == ref] or [s for s in ids if s.startswith(ref)]
    if len(matches) > 1:
        raise RivuletError(f"session {ref!r} is ambiguous here: " + ", ".join(matches[:5]))
    if not matches:
        raise RivuletError(f"no checkpoint of a session {ref!r} in this workspace")
    return matches[0]


def no_checkpoint(store: CheckpointStore, session: str | None) -> list[Checkpoint]:
    """The session's turns without a checkpoint since its newest one still applied (those
    an undo cannot put back), newest first."""
    out: list[Checkpoint] = []
    for cp in store.checkpoints(session)[::-1]:
        if cp.status == "applied":
            break
        if cp.status == FAILED:
            out.append(cp)
    return out


def undoable(store: CheckpointStore, session: str | None, turns: int = 1) -> list[Checkpoint]:
    """The newest `turns` checkpoints still applied, newest first."""
    cps = [cp for cp in store.checkpoints(session) if cp.status == "applied"]
    return cps[::-1][:turns]


def redoable(store: CheckpointStore, session: str | None, turns: int = 1) -> list[Checkpoint]:
    """The oldest `turns` undone checkpoints, oldest first (redo walks forward)."""
    return [cp for cp in store.checkpoints(session) if cp.status == "undone"][:turns]


def since_turn(store: CheckpointStore, session: str, turn: int) -> list[Checkpoint]:
    """What a rewind to before `turn` undoes: the applied checkpoints of that turn and
    later ones, newest first."""
    return [cp for cp in store.checkpoints(session) if cp.status == "applied" and cp.turn >= turn][::-1]


# ---- plans ---------------------------------------------------------------------------------


def plan(store: CheckpointStore, cps: list[Checkpoint], direction: str) -> Plan:
    """What undoing (cps newest first) or redoing (cps oldest first) would change."""
    out = Plan(direction, cps)
    ops: dict[str, Op] = {}
    for cp in cps:
        out.commands += cp.commands
        for c in cp.changes:
            now, then = (c.after, c.before) if direction == "undo" else (c.before, c.after)
            if c.path in ops:
                ops[c.path].target = then
            else:
                ops[c.path] = Op(c.path, now, then)
    others = _others_since(store, cps)
    for op in sorted(ops.values(), key=lambda o: o.path):
        if op.expect is not None and op.target is not None and op.expect.same_content(op.target):
            continue  # changed and changed back
        if op.target is not None and op.target.kind == "file" and (
                op.target.digest is None or not store.objects.has(op.target.digest)):
            out.lost.append(f"{op.path}: its content was not kept (over a cap, or unreadable): left as it is")
            continue
        why = others.get(op.path) or _differs(store, op.path, op.expect)
        if why:
            out.conflicts[op.path] = why
        out.ops.append(op)
    return out


def _others_since(store: CheckpointStore, cps: list[Checkpoint]) -> dict[str, str]:
    """Paths another session's turn changed after the first of `cps` began: path -> how it
    is said. Such a turn ran beside it (its checkpoint may hold the other's files) or after it."""
    if not cps:
        return {}
    mine = {cp.session for cp in cps}
    since = min(cp.started for cp in cps)
    out: dict[str, str] = {}
    for other in store.checkpoints():
        if other.session in mine or other.status != "applied" or other.time <= since:
            continue
        for c in other.changes:
            out.setdefault(c.path, f"changed by another session's turn since (session {other.session}, "
                                   f"turn {other.turn})")
    return out


def _differs(store: CheckpointStore, rel: str, expect: PathEntry | None) -> str | None:
    """How the path now differs from `expect` (None: it does not)."""
    now = lstat_entry(store.workspace, rel)
    if now is None and expect is None:
        return None
    if now is None:
        return "deleted since"
    if expect is None:
        return "created since"
    if now.kind != expect.kind:
        return f"now a {now.kind}"
    if now.mode != expect.mode:
        return f"mode changed since ({now.mode:o})"
    if now.kind == "link" and now.target != expect.target:
        return "link changed since"
    if now.kind == "file" and not now.same_stat(expect) and (
            expect.digest is None or _hash(os.path.join(store.workspace, rel)) != expect.digest):
        return "changed since"
    return None


def _hash(path: str) -> str | None:
    h = hashlib.sha256()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        while chunk := os.read(fd, 1024 * 1024):
            h.update(chunk)
    finally:
        os.close(fd)
    return h.hexdigest()


# ---- what the dialog shows ---------------------------------------------------------------


def _text(store: CheckpointStore, entry: PathEntry | None) -> str | bytes | None:
    if entry is None:
        return None
    if entry.kind == "link":
        return f"-> {entry.target}\n"
    if entry.kind == "dir":
        return ""
    if entry.digest is None or not store.objects.has(entry.digest):
        return b"?"
    data = store.objects.read(entry.digest)
    try:
        return data.decode("utf-8") if b"\0" not in data else data
    except UnicodeDecodeError:
        return data


def diff_text(store: CheckpointStore, p: Plan) -> str:
    """A unified diff of what the restore does, from the files as the turn left them."""
    out: list[str] = []
    for op in p.ops:
        a, b = _text(store, op.expect), _text(store, op.target)
        name = shown(op.path)  # a name is one row: never a diff line of its own
        kind = (op.target or op.expect or PathEntry("file", 0)).kind
        if kind == "dir" or (op.expect and op.expect.kind == "dir") or (op.target and op.target.kind == "dir"):
            what = "removed" if op.target is None else "created" if op.expect is None else "changed"
            out.append(f"directory {name}/ {what}\n")
            continue
        if op.expect and op.target and op.expect.mode != op.target.mode:
            out.append(f"mode {op.expect.mode:o} -> {op.target.mode:o} {name}\n")
        if isinstance(a, bytes) or isinstance(b, bytes):
            out.append(f"Binary file {name} differs\n")
        elif a != b:
            out.append(file_diff(name, a, b))
    return "".join(out)


# ---- the restore ---------------------------------------------------------------------------


def apply(store: CheckpointStore, p: Plan, *, overwrite: bool = False, unseen: dict[str, str] | None = None,
          step: Callable[[int], None] | None = None) -> Result:
    """Restore the plan's paths, all or nothing; a conflicting path only if `overwrite`, and
    an `unseen` one (a conflict the user was not shown) never. Call it inside
    `store.locked()`. `step(n)` runs after each change (tests kill there): 0 once the
    journal is written, before the first change; -1 once it is marked done."""
    unseen = unseen or {}
    ops = [op for op in p.ops if (overwrite or op.path not in p.conflicts) and op.path not in unseen]
    left = [f"{path}: {why}, left as it is" for path, why in p.conflicts.items() if not overwrite]
    left += [f"{path}: {why}, left as it is" for path, why in unseen.items() if path not in p.conflicts or overwrite]
    token = secrets.token_hex(6)
    prior: list[tuple[str, PathEntry | None]] = []
    for op in ops:
        now = lstat_entry(store.workspace, op.path)
        if now is not None and now.kind == "file":
            try:
                kept = store.objects.put_file(os.path.join(store.workspace, op.path), 1 << 62)
            except StoreWriteError as exc:
                raise RestoreError(f"the checkpoint store could not keep {shown(op.path)} "
                                   f"({exc.strerror or exc}): nothing was restored") from None
            except OSError as exc:
                raise RestoreError(f"{shown(op.path)} cannot be read ({exc.strerror or exc}): "
                                   "nothing was restored") from None
            if kept is None:
                raise RestoreError(f"{shown(op.path)} changed while it was read: nothing was restored")
            now = now.with_digest(kept[0])
        prior.append((op.path, now))
    store.objects.sync({e.digest for _, e in prior if e is not None and e.digest})  # what a rollback reads
    status = "undone" if p.direction == "undo" else "applied"
    journal: dict[str, Any] = {
        "token": token, "phase": "apply",
        "ops": [[op.path, _json(before), _json(op.target)] for op, (_, before) in zip(ops, prior, strict=True)],
        "statuses": {str(cp.seq): status for cp in p.checkpoints}}
    write_json(store.journal, journal)
    if step is not None:
        step(0)
    try:
        left += _run(store, [(op.path, op.target) for op in ops], token, step)
    except OSError as exc:
        recover(store)  # back to before, from the journal
        raise RestoreError(f"the restore failed ({exc.strerror or exc}"
                           f"{': ' + shown(exc.filename) if isinstance(exc.filename, str) else ''}); "
                           "every file is as it was before it") from None
    journal["phase"] = "done"
    write_json(store.journal, journal)
    if step is not None:
        step(-1)
    _finish(store, journal)
    return Result([op.path for op in ops], left)


def recover(store: CheckpointStore, step: Callable[[int], None] | None = None) -> str | None:
    """Finish a restore a kill interrupted: back to before it, or, if it was done, only its
    bookkeeping. Returns what was done, "rolled back" or "finished" (None: nothing)."""
    try:
        journal = json.loads(store.journal.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        store.journal.unlink(missing_ok=True)  # written atomically: unreadable means not ours to trust
        return None
    if journal.get("phase") == "done":
        _finish(store, journal)
        return "finished"
    pairs = [(str(path), PathEntry.from_json(before) if before else None) for path, before, _ in journal["ops"]]
    _run(store, pairs, str(journal["token"]), step, ignore_errors=True)
    _sweep(store, [p for p, _ in pairs], str(journal["token"]))
    store.journal.unlink(missing_ok=True)
    return "rolled back"


def _finish(store: CheckpointStore, journal: dict[str, Any]) -> None:
    for cp in store.checkpoints():
        if str(cp.seq) in journal["statuses"]:
            cp.status = journal["statuses"][str(cp.seq)]
            store.save(cp)
    store.journal.unlink(missing_ok=True)


def _json(entry: PathEntry | None) -> list[object] | None:
    return entry.to_json() if entry is not None else None


def _run(store: CheckpointStore, pairs: list[tuple[str, PathEntry | None]], token: str,
         step: Callable[[int], None] | None, ignore_errors: bool = False) -> list[str]:
    """Make each path hold its entry: first what must go (deepest first), then what must be
    there (shallowest first). Idempotent."""
    left: list[str] = []
    n = 0
    root_fd = os.open(store.workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        # Directories that stay or go are made writable first: a turn's `chmod 555 dir` must
        # not stop the restore inside it (for a user who is not root).
        for rel, target in sorted(pairs, key=lambda pr: pr[0].count("/")):
            if target is None or target.kind == "dir":  # (a directory to remove is emptied first)
                try:
                    _chmod_dir(root_fd, rel, None)
                except OSError:
                    if not ignore_errors:
                        raise
        for rel, target in sorted(pairs, key=lambda pr: -pr[0].count("/")):
            try:
                note = _remove_if_needed(root_fd, rel, target)
            except OSError:
                if not ignore_errors:
                    raise
                continue
            if note:
                left.append(f"{rel}: {note}")
            n += 1
            if step is not None:
                step(n)
        for rel, target in sorted(pairs, key=lambda pr: pr[0].count("/")):
            if target is None:
                continue
            try:
                _put(store, root_fd, rel, target, f".rivulet-restore-{token}-{n}")
            except OSError:
                if not ignore_errors:
                    raise
                continue
            n += 1
            if step is not None:
                step(n)
        for rel, target in sorted(pairs, key=lambda pr: -pr[0].count("/")):  # exact modes, once all is written
            if target is not None and target.kind == "dir":
                try:
                    _chmod_dir(root_fd, rel, target.mode)
                except OSError:
                    if not ignore_errors:
                        raise
    finally:
        os.close(root_fd)
    return left


def _parent(root_fd: int, rel: str, create: bool) -> int | None:
    fd = os.dup(root_fd)
    try:
        for part in rel.split("/")[:-1]:
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                os.mkdir(part, 0o755, dir_fd=fd)
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _kind(st: os.stat_result) -> str:
    return "dir" if stat.S_ISDIR(st.st_mode) else "link" if stat.S_ISLNK(st.st_mode) else "file"


def _chmod_dir(root_fd: int, rel: str, mode: int | None) -> None:
    """Set a directory's mode (None: add the owner's rwx); anything else there is left."""
    dir_fd = _parent(root_fd, rel, create=False)
    if dir_fd is None:
        return
    try:
        fd = os.open(rel.rsplit("/", 1)[-1], _DIR_FLAGS, dir_fd=dir_fd)
    except (FileNotFoundError, NotADirectoryError, OSError) as exc:
        os.close(dir_fd)
        if isinstance(exc, (FileNotFoundError, NotADirectoryError)) or exc.errno == errno.ELOOP:
            return  # not a directory now: the passes below replace it
        raise
    try:
        os.fchmod(fd, mode if mode is not None else stat.S_IMODE(os.fstat(fd).st_mode) | 0o700)
    finally:
        os.close(fd)
        os.close(dir_fd)


def _remove_if_needed(root_fd: int, rel: str, target: PathEntry | None) -> str | None:
    try:
        dir_fd = _parent(root_fd, rel, create=False)
    except NotADirectoryError:
        return None  # a parent is a file or link now: the second pass replaces it first
    if dir_fd is None:
        return None
    try:
        name = rel.rsplit("/", 1)[-1]
        st = _lstat(dir_fd, name)
        if st is None or (target is not None and _kind(st) == target.kind):
            return None
        if stat.S_ISDIR(st.st_mode):
            try:
                os.rmdir(name, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    return "a directory that still holds files rivulet does not track: left in place"
                raise
        else:
            os.unlink(name, dir_fd=dir_fd)
        os.fsync(dir_fd)
        return None
    finally:
        os.close(dir_fd)


def _put(store: CheckpointStore, root_fd: int, rel: str, target: PathEntry, tmp: str) -> None:
    dir_fd = _parent(root_fd, rel, create=True)
    assert dir_fd is not None
    try:
        name = rel.rsplit("/", 1)[-1]
        st = _lstat(dir_fd, name)
        if target.kind == "dir":
            if st is None:
                os.mkdir(name, 0o700, dir_fd=dir_fd)
            fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            try:
                os.fchmod(fd, target.mode | 0o700)  # writable while the restore fills it; exact at the end
            finally:
                os.close(fd)
            return
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        if target.kind == "link":
            os.symlink(target.target or "", tmp, dir_fd=dir_fd)
        else:
            assert target.digest is not None
            data = store.objects.read(target.digest)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=dir_fd)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fchmod(fd, target.mode)
                os.fsync(fd)
            finally:
                os.close(fd)
        if st is not None and stat.S_ISDIR(st.st_mode):
            os.rmdir(name, dir_fd=dir_fd)  # emptied by the first pass (or this fails: all is undone)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _sweep(store: CheckpointStore, paths: list[str], token: str) -> None:
    """Temporary files a killed restore left beside the paths it wrote."""
    for parent in {os.path.dirname(p) for p in paths}:
        folder = os.path.join(store.workspace, parent)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.startswith(f".rivulet-restore-{token}-"):
                try:
                    os.unlink(os.path.join(folder, name))
                except OSError:
                    pass


def checkpoint_diff(store: CheckpointStore, cp: Checkpoint) -> str:
    """What one turn changed, as a diff from before it to after it (ctrl+t's list)."""
    return diff_text(store, Plan("redo", [cp], [Op(c.path, c.before, c.after) for c in cp.changes]))
