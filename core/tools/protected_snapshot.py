"""What a sandboxed command may not change: the workspace's protected paths, before and after.

Before a command, `take` walks the workspace's names breadth-first (a directory is
listed, a file is not opened) and finds every protected path that exists: protected.py's
patterns at any depth, any virtualenv (a directory holding `pyvenv.cfg`), rivulet's own
directories and what a `.git` file's `gitdir:` points to. The sandbox binds each of them
read-only, so the command cannot change them. The small files among them (`.git/config`
and hooks, `.envrc`, `.vscode/*`, `*.pth`, ...) are hashed and kept, so that a change
made another way (a hard link planted earlier) is found and put back too.

After the command, the same walk finds what it created, which a read-only bind cannot
stop (`.vscode/tasks.json`, `.git` from `git init`, a `.pth`, `pyvenv.cfg`, a bare
repository under any name): `compare` lists it, the router asks the user, and `undo`
removes it (and restores what changed), saying only what it really did.

Bounds: the walk stops descending into a protected path, a virtualenv, `node_modules`
and caches; it goes `MAX_DEPTH` levels deep and stops after the level where it has seen
`MAX_ENTRIES` names. Below the levels both walks covered, nothing is compared (and
nothing is removed that the first walk did not see as absent). A walk stopped by the
name cap is `cut`: then what a `Memory` (one session's) holds from earlier walks is
protected still, and the guard asks before each command (protected_guard.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from fnmatch import fnmatchcase, translate
from pathlib import Path

from rivulet.core.tools.protected import (
    DEFAULT_PROTECTED,
    GIT_DIR_WHY,
    GIT_PARTS,
    git_marks,
    gitdirs,
    is_git_dir,
    pattern_reason,
    rivulet_dirs,
)

MAX_DEPTH = 8
MAX_ENTRIES = 50_000
PRUNE = frozenset({"node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
KEEP_BYTES = 256 * 1024  # a protected file up to this size is kept whole, to be put back
KEEP_TOTAL = 8 * 1024 * 1024
MAX_FILES_PER_PATH = 300  # files hashed under one protected directory
GIT_KEPT = ("config", "commondir", "hooks", "info")  # what of a .git directory runs code (objects do not)
GIT_INERT = frozenset({"objects", "refs", "branches", "description"})  # of a git directory at the root: not hashed
VENV = "a virtualenv: Python runs its .pth files and sitecustomize at start-up"


@dataclass(frozen=True)
class Entry:
    kind: str  # "file", "dir", "link", "other", "absent"
    digest: str = ""  # a file's sha256, when it was read; a link's target
    stamp: str = ""  # a file's size, inode and ctime: every write changes it, and no call sets ctime
    data: bytes | None = None  # a small file's bytes, to put it back
    mode: int = 0o644

    def differs(self, other: Entry) -> bool:
        """Whether `other` is a change from this entry: by content where both were read
        (the budget may have left one unread), else by the stamp."""
        if (self.kind, self.mode) != (other.kind, other.mode):
            return True
        if self.kind == "link":
            return self.digest != other.digest
        if self.kind == "file":
            return self.digest != other.digest if self.digest and other.digest else self.stamp != other.stamp
        return False


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
    listed: set[str] = field(default_factory=set)  # the folders whose names were listed ("": the root)
    gitdirs: set[str] = field(default_factory=set)  # folders git takes for a git directory ("": the root)
    marks: dict[str, frozenset[str]] = field(default_factory=dict)  # a folder holding HEAD: its git marks
    cut: list[str] = field(default_factory=list)  # the folders left unlisted by the name cap (none: whole)
    names: int = 0  # names listed

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


def take(workspace: Path, patterns: tuple[str, ...] | list[str] = DEFAULT_PROTECTED,
         memory: Memory | None = None) -> Snapshot:
    root = workspace.resolve()
    snap = Snapshot(root)
    own = {}
    for folder in [*rivulet_dirs(), *gitdirs(root)]:
        if folder != root and folder.is_relative_to(root):
            own[folder.relative_to(root).as_posix()] = "rivulet's own settings or data, or a git directory"
    for rel, why in own.items():  # at any depth, whether the walk reaches them or not
        if os.path.lexists(root / rel):
            _found(snap, rel, rel, why)
    if marks := git_marks(root):
        snap.marks[""] = marks
        if is_git_dir(marks):  # the root is a git directory: its parts are protected, one by one
            snap.gitdirs.add("")
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
            snap.listed.add(rel_dir)
            for e in entries:
                rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
                snap.seen.add(rel)
                listed += 1
                if rel in own:
                    continue
                if matches(rel, e.name):
                    _found(snap, rel, rel, pattern_reason(rel, patterns) or "protected")
                    continue
                if not rel_dir and e.name in GIT_PARTS and "" in snap.gitdirs:
                    _found(snap, rel, rel, f"{rel}: the workspace root is {GIT_DIR_WHY}")
                    continue
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if not is_dir:
                    continue
                if marks := git_marks(e.path):  # looked at whatever the folder's name (node_modules too)
                    snap.marks[rel] = marks
                if os.path.isfile(os.path.join(e.path, "pyvenv.cfg")):  # a virtualenv, whatever its name
                    _found(snap, f"{rel}/pyvenv.cfg", rel, f"{rel} is {VENV}")
                elif is_git_dir(marks):  # a bare repository, whatever its name
                    snap.gitdirs.add(rel)
                    _found(snap, rel, rel, f"{rel} is {GIT_DIR_WHY}")
                elif e.name not in PRUNE:
                    deeper.append((rel, e.path))
        depth += 1
        level = deeper
    snap.covered = MAX_DEPTH + 1 if not level else depth
    snap.names = listed
    if level and depth < MAX_DEPTH:  # stopped by the name cap, not by the depth
        snap.cut = [rel for rel, _ in level]
    if memory is not None:
        memory.recall(snap)
        memory.keep(snap)
    budget = [KEEP_TOTAL]
    for rel in list(snap.protected):
        _hash_under(snap, rel, budget)
    return snap


@dataclass
class Memory:
    """Every protected path one session's walks found (path -> what to bind, why). A
    walk that did not list a path (cut short by a flood) keeps it protected while it
    exists; a walk that listed it and found it no longer protected forgets it."""

    found: dict[str, tuple[str, str]] = field(default_factory=dict)
    gitdirs: set[str] = field(default_factory=set)

    def recall(self, snap: Snapshot) -> None:
        for rel, (bind, why) in self.found.items():
            if rel in snap.protected or rel in snap.seen or bind in snap.seen:  # the walk judged it
                continue
            if any(anc in snap.protected for anc in _ancestors(rel)) or not os.path.lexists(snap.root / rel):
                continue
            _found(snap, rel, bind, why)
            if rel in self.gitdirs:
                snap.gitdirs.add(rel)

    def keep(self, snap: Snapshot) -> None:
        for rel, (bind, _) in list(self.found.items()):
            if (rel in snap.seen or bind in snap.seen) and rel not in snap.protected:
                del self.found[rel]
                self.gitdirs.discard(rel)
        self.found.update((rel, (snap.bind[rel], why)) for rel, why in snap.protected.items())
        self.gitdirs |= snap.gitdirs


def _ancestors(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:n]) for n in range(1, len(parts))]


def _found(snap: Snapshot, rel: str, bind: str, why: str) -> None:
    snap.protected[rel] = why
    snap.bind[rel] = bind


def read_entry(path: str, budget: list[int]) -> Entry:
    try:
        st = os.lstat(path)
    except OSError:
        return Entry("absent")
    mode = st.st_mode & 0o7777
    if stat.S_ISLNK(st.st_mode):
        return Entry("link", os.readlink(path), mode=mode)
    if stat.S_ISDIR(st.st_mode):
        return Entry("dir", mode=mode)
    if not stat.S_ISREG(st.st_mode):
        return Entry("other", mode=mode)
    stamp = f"{st.st_size}:{st.st_ino}:{st.st_ctime_ns}"
    if st.st_size > KEEP_BYTES or st.st_size > budget[0]:
        return Entry("file", stamp=stamp, mode=mode)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(KEEP_BYTES + 1)
    except OSError:
        return Entry("file", stamp=stamp, mode=mode)
    budget[0] -= len(data)
    return Entry("file", hashlib.sha256(data).hexdigest(), stamp, data, mode)


def _hash_under(snap: Snapshot, rel: str, budget: list[int]) -> None:
    """The protected path's entry, and those of the files under it that can run code
    (of a virtualenv only its marker: it is bound read-only whole, and large)."""
    path = str(snap.root / rel)
    snap.files[rel] = entry = read_entry(path, budget)
    if entry.kind != "dir" or ("" in snap.gitdirs and rel in GIT_INERT):
        return
    if os.path.isfile(os.path.join(path, "pyvenv.cfg")):
        tops = [os.path.join(path, "pyvenv.cfg")]
    elif os.path.basename(rel) == ".git" or rel in snap.gitdirs or snap.protected[rel].endswith("a git directory"):
        tops = [os.path.join(path, name) for name in GIT_KEPT]
    else:
        tops = [path]
    left = MAX_FILES_PER_PATH
    for top in tops:
        if not os.path.isdir(top) or os.path.islink(top):
            if os.path.lexists(top) and left > 0:
                snap.files[os.path.relpath(top, snap.root)] = read_entry(top, budget)
                left -= 1
            continue
        for folder, dirs, names in os.walk(top):
            dirs[:] = [d for d in dirs if d not in PRUNE]
            names = [n for n in names if not n.endswith(".sample")]  # git never runs hooks/*.sample
            for name in names[:left]:
                full = os.path.join(folder, name)
                snap.files[os.path.relpath(full, snap.root)] = read_entry(full, budget)
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
        if rel in before.protected or (_depth(rel) > covered and rel in after.seen):
            continue
        if rel in after.gitdirs and rel in before.seen:  # a folder that was there, made a git directory
            changes += [Change(part, "created", why) for part in _added_git_parts(before, rel)]
        elif not (rel in before.seen and rel in GIT_PARTS and "" in after.gitdirs):  # (the root's, there before)
            changes.append(Change(rel, "created", why))
    for rel, old in before.files.items():
        new = after.files.get(rel) or read_entry(str(after.root / rel), [0])
        if old.differs(new):
            why = before.protected.get(rel) or _why_under(before, rel)
            changes.append(Change(rel, "removed" if new.kind == "absent" else "changed", why))
    for rel in after.files:
        if rel not in before.files and any(rel.startswith(p + "/") for p in before.protected):
            changes.append(Change(rel, "created", _why_under(before, rel)))
    return changes


def _added_git_parts(before: Snapshot, folder: str) -> list[str]:
    """What made an existing folder a git directory: the parts it did not hold before
    (its names, when the first walk listed them), or else its `HEAD` (removing which is
    enough). The user's own files in it are never among them."""
    path = before.root / folder
    if folder in before.listed:
        return [f"{folder}/{p}" for p in GIT_PARTS if os.path.lexists(path / p) and f"{folder}/{p}" not in before.seen]
    old = before.marks.get(folder)
    if old is None:
        return [f"{folder}/HEAD"]
    return [f"{folder}/{m}" for m in sorted(git_marks(path) - old)]


def _why_under(snap: Snapshot, rel: str) -> str:
    for path, why in snap.protected.items():
        if rel.startswith(path + "/"):
            return why
    return "protected"
