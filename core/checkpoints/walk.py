"""A stat walk of the workspace: every file, directory and symbolic link `.gitignore`
leaves in, with what a change would show (kind, mode, size, times, inode).

Nothing is opened and no link is followed (`os.scandir`'s lstat). `.git`, `.hg` and `.svn`
are never entered: what a command does to them is not undone. The ignore rules are
parsed with `pathspec` (git's pattern rules), never by the repository's git.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from rivulet.core.checkpoints.limits import MAX_ENTRIES as MAX_ENTRIES

if TYPE_CHECKING:
    import pathspec  # imported by the first walk that meets a .gitignore: ~10 ms a start that walks nothing

SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
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
class _Rules:
    base: str  # the directory of the .gitignore, relative to the workspace ("" for the top)
    spec: pathspec.GitIgnoreSpec

    def ignores(self, rel: str, is_dir: bool) -> bool:
        inner = rel[len(self.base) + 1:] if self.base else rel
        return self.spec.match_file(inner + "/" if is_dir else inner)


@dataclass
class Walk:
    entries: dict[str, PathEntry] = field(default_factory=dict)
    ignored_dirs: list[str] = field(default_factory=list)  # whole directories left out
    rules: dict[str, list[_Rules]] = field(default_factory=dict)  # by directory: the rules in force
    too_many: bool = False

    def ignores(self, rel: str, is_dir: bool = False) -> bool:
        """Whether this walk's rules leave `rel` out (a path in a directory it never saw:
        the rules of the nearest directory it saw)."""
        parts = rel.split("/")
        for n in range(1, len(parts)):
            prefix = "/".join(parts[:n])
            if prefix in SKIP_DIRS or any(r.ignores(prefix, True) for r in self._rules_at("/".join(parts[:n - 1]))):
                return True
        return any(r.ignores(rel, is_dir) for r in self._rules_at("/".join(parts[:-1])))

    def _rules_at(self, directory: str) -> list[_Rules]:
        while directory not in self.rules and directory:
            directory = directory.rpartition("/")[0]
        return self.rules.get(directory, [])


def walk(root: Path, max_entries: int = MAX_ENTRIES, exclude: frozenset[str] = frozenset()) -> Walk:
    """Every kept path under `root` (relative, `/`-separated), as a PathEntry without digest.
    `exclude`: relative directories never entered (rivulet's own, when inside the workspace)."""
    out = Walk()
    stack: list[tuple[str, list[_Rules]]] = [("", [])]
    while stack:
        rel_dir, parent_rules = stack.pop()
        here = list(parent_rules)
        abs_dir = os.path.join(root, rel_dir) if rel_dir else str(root)
        try:
            with os.scandir(abs_dir) as it:
                children = list(it)
        except OSError:
            continue  # unreadable (a directory the user cannot list): left as it is
        if any(c.name == ".gitignore" and c.is_file(follow_symlinks=False) for c in children):
            try:
                with open(os.path.join(abs_dir, ".gitignore"), "rb") as fh:
                    lines = fh.read(1024 * 1024).decode("utf-8", "replace").splitlines()
                import pathspec

                here.append(_Rules(rel_dir, pathspec.GitIgnoreSpec.from_lines(lines)))
            except (OSError, ValueError):
                pass
        out.rules[rel_dir] = here
        for child in children:
            rel = f"{rel_dir}/{child.name}" if rel_dir else child.name
            try:
                st = child.stat(follow_symlinks=False)
            except OSError:
                continue
            is_dir = stat.S_ISDIR(st.st_mode)
            if is_dir and (child.name in SKIP_DIRS or rel in exclude):
                continue
            if here and any(r.ignores(rel, is_dir) for r in here):
                if is_dir:
                    out.ignored_dirs.append(rel)
                continue
            target = None
            if stat.S_ISLNK(st.st_mode):
                try:
                    target = os.readlink(child.path)
                except OSError:
                    continue
            entry = entry_of(st, target)
            if entry is None:
                continue
            out.entries[rel] = entry
            if len(out.entries) > max_entries:
                out.too_many = True
                return out
            if is_dir:
                stack.append((rel, here))
    return out
