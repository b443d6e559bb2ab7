"""The one walk of a workspace that leaves out what its `.gitignore` files leave out, as
git does: under the checkpoints' stat walk (core/checkpoints/walk.py) and the `@path`
completion outside a git work tree (core/tools/workspace_files.py).

Each `.gitignore` is parsed by `pathspec` (git's pattern rules: negation, anchoring,
directory-only patterns); a line git would reject is skipped and the rest of its file
applies. Between files, git's order holds: the deepest file with a matching pattern
decides (a `!keep.log` below overrides a `*.log` above). An ignored directory is not
entered, so nothing below it comes back, as in git. `.git`, `.hg` and `.svn` are never
entered; no link is followed, and a `.gitignore` that is a link is not read (git does not
read one either). Paths are relative to the root, with `/` separators.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import pathspec  # imported by the first walk that meets a .gitignore: ~10 ms a start that walks nothing

SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
MAX_IGNORE_BYTES = 1024 * 1024  # of one .gitignore


class IgnoreRules:
    """The `.gitignore` files in force in one directory, outermost first."""

    __slots__ = ("files",)

    def __init__(self, files: tuple[tuple[str, pathspec.GitIgnoreSpec], ...] = ()) -> None:
        self.files = files  # (its directory, relative to the root: "" for the top; its patterns)

    def __bool__(self) -> bool:
        return bool(self.files)

    def ignores(self, rel: str, is_dir: bool) -> bool:
        """`rel`, in the directory these rules are in force in, is left out."""
        files = self.files
        if not files:
            return False
        for n in range(len(files) - 1, 0, -1):  # the deepest file first: the first that decides, decides
            base, spec = files[n]
            decided = spec.check_file(rel[len(base) + 1:] + "/" if is_dir else rel[len(base) + 1:]).include
            if decided is not None:
                return decided
        base, spec = files[0]  # the outermost: undecided is "left in" (match_file is the cheaper call)
        inner = rel[len(base) + 1:] if base else rel
        return spec.match_file(inner + "/" if is_dir else inner)

    def with_file_in(self, root: Path, rel_dir: str) -> IgnoreRules:
        """These rules and those of `rel_dir`'s own `.gitignore` (these alone when it cannot be read)."""
        path = os.path.join(root, rel_dir, ".gitignore")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    return self
                lines = fh.read(MAX_IGNORE_BYTES).decode("utf-8", "replace").splitlines()
        except OSError:
            return self
        return IgnoreRules((*self.files, (rel_dir, _spec(lines))))


def _spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # a line git rejects (`!` alone, a trailing `\`): that line goes, the rest applies
        return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _valid(line)])


def _valid(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True


class Found(NamedTuple):
    rel: str
    entry: os.DirEntry[str]
    st: os.stat_result | None  # the lstat, when the walk was asked for it
    is_dir: bool  # a directory itself, not a link to one


class RulesByDir(dict[str, IgnoreRules]):
    """The rules in force in each directory a walk entered: what it would have left out
    of a path it never saw (the rules of the nearest directory it entered)."""

    def ignores(self, rel: str, is_dir: bool = False) -> bool:
        parts = rel.split("/")
        for n in range(1, len(parts)):
            if parts[n - 1] in SKIP_DIRS or self._at("/".join(parts[:n - 1])).ignores("/".join(parts[:n]), True):
                return True
        return self._at("/".join(parts[:-1])).ignores(rel, is_dir)

    def _at(self, directory: str) -> IgnoreRules:
        while directory not in self and directory:
            directory = directory.rpartition("/")[0]
        return self.get(directory, _NONE)


_NONE = IgnoreRules()


def walk(root: Path, *, with_stat: bool = False, exclude: frozenset[str] = frozenset(),
         rules: RulesByDir | None = None, ignored_dirs: list[str] | None = None) -> Iterator[Found]:
    """Every path under `root` the ignore rules leave in (directories before what is in
    them); `exclude`: directories never entered. `with_stat`: each path's lstat (a path
    that cannot be stat'ed is skipped). `rules` and `ignored_dirs`, when given, are filled
    in: the rules of each directory entered, and the directories left out."""
    stack: list[tuple[str, IgnoreRules]] = [("", _NONE)]
    while stack:
        rel_dir, here = stack.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as it:
                children = list(it)
        except OSError:
            continue  # unreadable (a directory the user cannot list): left as it is
        if any(c.name == ".gitignore" for c in children):
            here = here.with_file_in(root, rel_dir)
        if rules is not None:
            rules[rel_dir] = here
        for child in children:
            rel = f"{rel_dir}/{child.name}" if rel_dir else child.name
            st: os.stat_result | None = None
            try:
                if with_stat:
                    st = child.stat(follow_symlinks=False)
                    is_dir = stat.S_ISDIR(st.st_mode)
                else:
                    is_dir = child.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and (child.name in SKIP_DIRS or rel in exclude):
                continue
            if here and here.ignores(rel, is_dir):
                if is_dir and ignored_dirs is not None:
                    ignored_dirs.append(rel)
                continue
            yield Found(rel, child, st, is_dir)
            if is_dir:
                stack.append((rel, here))
