"""A stat walk of the workspace: every file, directory and symbolic link `.gitignore`
leaves in, with what a change would show (kind, mode, size, times, inode).

Nothing but a `.gitignore` is opened and no link is followed (`os.scandir`'s lstat). `.git`,
`.hg` and `.svn` are never entered: what a command does to them is not undone. The walk and
its ignore rules are core/ignore_walk.py's (git's rules, never the repository's git).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from rivulet.core import ignore_walk
from rivulet.core.checkpoints.limits import MAX_ENTRIES as MAX_ENTRIES
from rivulet.core.ignore_walk import RulesByDir

# A workspace with more names than MAX_ENTRIES is not checkpointed (said, not half done).


class PathEntry(NamedTuple):
    """One path as the walk saw it (a tuple: a walk makes one per path, 10,000s of them).
    `digest` is a file's sha256 once its content is kept (None: not read, or over the
    cap); `target` is a link's target."""

    kind: str  # "file", "dir", "link"
    mode: int  # the permission bits (st_mode & 0o7777)
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    ino: int = 0
    digest: str | None = None
    target: str | None = None

    def same_stat(self, other: PathEntry) -> bool:
        """Nothing changed on disk since `other` was taken (ctime moves on every write,
        chmod and rename, so a same-size rewrite within one mtime tick is caught too)."""
        return self[:6] == other[:6] and self[7] == other[7]

    def same_content(self, other: PathEntry | None) -> bool:
        """What a restore compares: kind, mode and content (not times or inode)."""
        if other is None or self.kind != other.kind or self.mode != other.mode:
            return False
        if self.kind == "link":
            return self.target == other.target
        if self.kind == "file":
            return self.digest is not None and self.digest == other.digest
        return True

    def same_content_ignoring_mode(self, other: PathEntry) -> bool:
        return self.kind == other.kind and PathEntry(self.kind, other.mode, digest=self.digest,
                                                  target=self.target).same_content(other)

    def to_json(self) -> list[object]:
        return list(self)

    @classmethod
    def from_json(cls, data: list[Any]) -> PathEntry:
        """From the store's own files (0600 in a 0700 directory): shape-checked, not distrusted."""
        if len(data) != 8 or data[0] not in ("file", "dir", "link"):
            raise ValueError("not a checkpoint entry")
        return cls._make(data)

    def with_digest(self, digest: str) -> PathEntry:
        return self._replace(digest=digest)


def entry_of(st: os.stat_result, target: str | None = None) -> PathEntry | None:
    """The entry for an lstat result (None: a socket, FIFO or device: not kept)."""
    if stat.S_ISLNK(st.st_mode):
        kind = "link"
    elif stat.S_ISREG(st.st_mode):
        kind = "file"
    elif stat.S_ISDIR(st.st_mode):
        kind = "dir"
    else:
        return None
    if kind == "dir":  # a directory's times move with its contents: only its mode is compared
        return PathEntry(kind, stat.S_IMODE(st.st_mode))
    return PathEntry(kind, stat.S_IMODE(st.st_mode), st.st_size if kind == "file" else 0, st.st_mtime_ns,
                     st.st_ctime_ns, st.st_ino, None, target)


def lstat_entry(root: Path, rel: str) -> PathEntry | None:
    """One path now (None: absent or not a kind that is kept)."""
    path = os.path.join(root, rel)
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    target = os.readlink(path) if stat.S_ISLNK(st.st_mode) else None
    return entry_of(st, target)


@dataclass
class Walk:
    entries: dict[str, PathEntry] = field(default_factory=dict)
    ignored_dirs: list[str] = field(default_factory=list)  # whole directories left out
    rules: RulesByDir = field(default_factory=RulesByDir)  # by directory: the rules in force
    too_many: bool = False

    def ignores(self, rel: str, is_dir: bool = False) -> bool:
        """Whether this walk's rules leave `rel` out (a path in a directory it never saw:
        the rules of the nearest directory it saw)."""
        return self.rules.ignores(rel, is_dir)


def walk(root: Path, max_entries: int = MAX_ENTRIES, exclude: frozenset[str] = frozenset()) -> Walk:
    """Every kept path under `root` (relative, `/`-separated), as a PathEntry without digest.
    `exclude`: relative directories never entered (rivulet's own, when inside the workspace)."""
    out = Walk()
    for found in ignore_walk.walk(root, with_stat=True, exclude=exclude, rules=out.rules,
                                  ignored_dirs=out.ignored_dirs):
        st = found.st
        assert st is not None  # asked for
        target = None
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(found.entry.path)
            except OSError:
                continue
        entry = entry_of(st, target)
        if entry is None:
            continue
        out.entries[found.rel] = entry
        if len(out.entries) > max_entries:
            out.too_many = True
            return out
    return out
