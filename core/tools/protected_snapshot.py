"""What a sandboxed command may not change: the workspace's protected paths, before and after.

Before a command, `take` walks the workspace's names breadth-first (a directory is
listed, a file is not opened) and finds every protected path that exists: protected.py's
patterns at any depth, any virtualenv (a directory holding `pyvenv.cfg`), rivulet's own
directories and what a `.git` file's `gitdir:` points to. The sandbox binds each of them
read-only, so the command cannot change them. The small files among them (`.git/config`
and hooks, `.envrc`, `.vscode/*`, `*.pth`, ...) are hashed and kept, so that a change
made another way (a hard link planted earlier) is found and put back too.

After the command, the same walk finds what it created, which a read-only bind cannot
stop (`.vscode/tasks.json`, `.git` from `git init`, a `.pth`, `pyvenv.cfg`): `compare`
lists it, the router asks the user, and `undo` removes it (and restores what changed).

Bounds: the walk stops descending into a protected path, a virtualenv, `node_modules`
and caches; it goes `MAX_DEPTH` levels deep and stops after the level where it has seen
`MAX_ENTRIES` names. Below the levels both walks covered, nothing is compared (and
nothing is removed that the first walk did not see as absent).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from fnmatch import fnmatchcase, translate
from pathlib import Path

from rivulet.core.tools.patch_apply import _open_parent, _write_temp
from rivulet.core.tools.protected import DEFAULT_PROTECTED, gitdirs, pattern_reason, rivulet_dirs

MAX_DEPTH = 8
MAX_ENTRIES = 50_000
PRUNE = frozenset({"node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
KEEP_BYTES = 256 * 1024  # a protected file up to this size is kept whole, to be put back
KEEP_TOTAL = 8 * 1024 * 1024
MAX_FILES_PER_PATH = 300  # files hashed under one protected directory
GIT_KEPT = ("config", "commondir", "hooks", "info")  # what of a .git directory runs code (objects do not)
VENV = "a virtualenv: Python runs its .pth files and sitecustomize at start-up"


@dataclass(frozen=True)
class Entry:
    kind: str  # "file", "dir", "link", "other"
    digest: str = ""  # a file's sha256 (or its size and mtime, when large); a link's target
    data: bytes | None = None  # a small file's bytes, to put it back
    mode: int = 0o644


@dataclass
class Change:
    path: str  # relative to the workspace
    what: str  # "created", "changed", "removed"
    why: str


@dataclass
class Snapshot:
    root: Path
    protected: dict[str, str] = field(default_factory=dict)  # relative path -> why
    bind: dict[str, str] = field(default_factory=dict)  # relative path -> what to bind read-only for it
    files: dict[str, Entry] = field(default_factory=dict)  # protected paths and the files under them
    seen: set[str] = field(default_factory=set)  # every name the walk listed
    covered: int = MAX_DEPTH  # levels listed completely (a path with more parts was not compared)

    def read_only(self) -> list[Path]:
        """What the sandbox binds read-only: every protected path that exists, not links."""
        out = []
        for rel in sorted(set(self.bind.values())):
            path = self.root / rel
            if not path.is_symlink() and path.exists():
                out.append(path)
        return out


@functools.lru_cache(maxsize=8)
def _matcher(patterns: tuple[str, ...]) -> _Matcher:
    return _Matcher(patterns)


class _Matcher:
    """protected.py's patterns, compiled for one name at a time (the walk stops at a match)."""

    def __init__(self, patterns: tuple[str, ...] | list[str]) -> None:
        plain = [p.strip("/") for p in patterns]
        self.names = frozenset(p for p in plain if "/" not in p and not re.search(r"[*?\[]", p))
        globs = [translate(p) for p in plain if "/" not in p and re.search(r"[*?\[]", p)]
        self.glob = re.compile("|".join(f"(?:{g})" for g in globs)) if globs else None
        self.slashed: dict[int, list[str]] = {}  # by the number of slashes: only a path as deep can match
        for p in plain:
            if "/" in p:
                self.slashed.setdefault(p.count("/"), []).append(p)

    def __call__(self, rel: str, name: str) -> bool:
        if name in self.names or (self.glob is not None and self.glob.match(name)):
            return True
        deep = self.slashed.get(rel.count("/")) if self.slashed else None
        return deep is not None and any(fnmatchcase(rel, p) for p in deep)


def take(workspace: Path, patterns: tuple[str, ...] | list[str] = DEFAULT_PROTECTED) -> Snapshot:
    root = workspace.resolve()
    snap = Snapshot(root)
    own = {}
    for folder in [*rivulet_dirs(), *gitdirs(root)]:
        if folder != root and folder.is_relative_to(root):
            own[folder.relative_to(root).as_posix()] = "rivulet's own settings or data, or a git directory"
    for rel, why in own.items():  # at any depth, whether the walk reaches them or not
        if os.path.lexists(root / rel):
            _found(snap, rel, rel, why)
    matches = _matcher(tuple(patterns))
    level = [("", str(root))]
    listed = 0
    depth = 0
    while level and depth < MAX_DEPTH and listed < MAX_ENTRIES:
        deeper = []
        for rel_dir, path in level:
            try:
                entries = list(os.scandir(path))
            except OSError:
                continue
            for e in entries:
                rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
                snap.seen.add(rel)
                listed += 1
                if rel in own:
                    continue
                if matches(rel, e.name):
                    _found(snap, rel, rel, pattern_reason(rel, patterns) or "protected")
                    continue
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if not is_dir:
                    continue
                if os.path.isfile(os.path.join(e.path, "pyvenv.cfg")):  # a virtualenv, whatever its name
                    _found(snap, f"{rel}/pyvenv.cfg", rel, f"{rel} is {VENV}")
                elif e.name not in PRUNE:
                    deeper.append((rel, e.path))
        depth += 1
        level = deeper
    snap.covered = MAX_DEPTH + 1 if not level else depth
    budget = [KEEP_TOTAL]
    for rel in list(snap.protected):
        _hash_under(snap, rel, budget)
    return snap


def _found(snap: Snapshot, rel: str, bind: str, why: str) -> None:
    snap.protected[rel] = why
    snap.bind[rel] = bind


def _entry(path: str, budget: list[int]) -> Entry:
    try:
        st = os.lstat(path)
    except OSError:
        return Entry("absent")
    if stat.S_ISLNK(st.st_mode):
        return Entry("link", os.readlink(path))
    if stat.S_ISDIR(st.st_mode):
        return Entry("dir")
    if not stat.S_ISREG(st.st_mode):
        return Entry("other")
    if st.st_size > KEEP_BYTES or st.st_size > budget[0]:
        return Entry("file", f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(KEEP_BYTES + 1)
    except OSError:
        return Entry("file", f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}")
    budget[0] -= len(data)
    return Entry("file", hashlib.sha256(data).hexdigest(), data, st.st_mode & 0o7777)


def _hash_under(snap: Snapshot, rel: str, budget: list[int]) -> None:
    """The protected path's entry, and those of the files under it that can run code
    (of a virtualenv only its marker: it is bound read-only whole, and large)."""
    path = str(snap.root / rel)
    snap.files[rel] = entry = _entry(path, budget)
    if entry.kind != "dir":
        return
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        tops = [os.path.join(path, "pyvenv.cfg")]
    elif os.path.basename(rel) == ".git" or snap.protected[rel].endswith("a git directory"):
        tops = [os.path.join(path, name) for name in GIT_KEPT]
    else:
        tops = [path]
    left = MAX_FILES_PER_PATH
    for top in tops:
        if not os.path.isdir(top) or os.path.islink(top):
            if os.path.lexists(top) and left > 0:
                snap.files[os.path.relpath(top, snap.root)] = _entry(top, budget)
                left -= 1
            continue
        for folder, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in PRUNE]
            names = [n for n in names if not n.endswith(".sample")]  # git never runs hooks/*.sample
            for name in names[:left]:
                full = os.path.join(folder, name)
                snap.files[os.path.relpath(full, snap.root)] = _entry(full, budget)
            left -= min(left, len(names))
            if left <= 0:
                break


def _depth(rel: str) -> int:
    return rel.count("/") + 1


def compare(before: Snapshot, after: Snapshot) -> list[Change]:
    """What the command created, changed or removed among the protected paths."""
    covered = min(before.covered, after.covered)
    changes = []
    for rel, why in after.protected.items():  # found by the walk where both walks listed, or by name
        if rel not in before.protected and (_depth(rel) <= covered or rel not in after.seen):
            changes.append(Change(rel, "created", why))
    for rel, old in before.files.items():
        new = after.files.get(rel) or _entry(str(after.root / rel), [0])
        if (new.kind, new.digest) != (old.kind, old.digest):
            why = before.protected.get(rel) or _why_under(before, rel)
            changes.append(Change(rel, "removed" if new.kind == "absent" else "changed", why))
    for rel in after.files:
        if rel not in before.files and any(rel.startswith(p + "/") for p in before.protected):
            changes.append(Change(rel, "created", _why_under(before, rel)))
    return changes


def _why_under(snap: Snapshot, rel: str) -> str:
    for path, why in snap.protected.items():
        if rel.startswith(path + "/"):
            return why
    return "protected"


def undo(before: Snapshot, changes: list[Change]) -> list[str]:
    """Put the protected paths back as they were: remove what was created, write back what
    changed. Every step is done from the workspace's descriptor without following a
    link. One line per path for the model and the user, saying what was done."""
    lines = []
    root_fd = os.open(before.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for change in changes:
            try:
                lines.append(_undo_one(before, change, root_fd))
            except OSError as exc:
                lines.append(f"{change.path}: could not be undone ({exc.strerror or exc})")
    finally:
        os.close(root_fd)
    return lines


def _undo_one(before: Snapshot, change: Change, root_fd: int) -> str:
    rel = change.path
    if change.what == "created":
        if rel.endswith("/pyvenv.cfg") and rel[: -len("/pyvenv.cfg")] not in before.seen:
            rel = rel[: -len("/pyvenv.cfg")]  # a whole new virtualenv: remove it, not only its marker
        parts = Path(rel).parts
        dir_fd = _open_parent(root_fd, parts, create=False)
        try:
            _remove(dir_fd, parts[-1])
        finally:
            os.close(dir_fd)
        return f"{rel}: removed"
    old = before.files.get(rel)
    if old is None or old.kind not in ("file", "link") or (old.kind == "file" and old.data is None):
        return f"{rel}: could not be put back (rivulet did not keep its content)"
    parts = Path(rel).parts
    dir_fd = _open_parent(root_fd, parts, create=True)
    try:
        name = parts[-1]
        if old.kind == "link":
            _remove(dir_fd, name)
            os.symlink(old.digest, name, dir_fd=dir_fd)
        else:
            assert old.data is not None
            tmp = _write_temp(dir_fd, old.data, old.mode)
            if _is_dir(dir_fd, name):
                _remove(dir_fd, name)
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return f"{rel}: put back as it was"
    finally:
        os.close(dir_fd)


def _is_dir(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def _remove(dir_fd: int, name: str) -> None:
    if _is_dir(dir_fd, name):
        shutil.rmtree(name, dir_fd=dir_fd)  # the descriptor-based walk: a link inside is removed, not followed
    else:
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
