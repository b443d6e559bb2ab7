"""The workspace's files for `@path` completion, as git sees them, ranked fuzzily.

In a git work tree, `git ls-files --cached --others --exclude-standard` is the truth
(tracked files plus untracked ones that no ignore rule hides, every ignore source
honoured). Elsewhere, or when git is missing or refuses, core/ignore_walk.py's walk
honours each directory's `.gitignore` as git does and never enters `.git`. Paths are
relative to the workspace, with `/` separators.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rivulet.core import ignore_walk
from rivulet.core.tools.safe_git import run_git

MAX_FILES = 50_000  # a completion list has no use for more; huge trees stay fast


def list_files(workspace: Path, *, max_files: int = MAX_FILES, use_git: bool = True) -> list[str]:
    """The workspace's files (relative paths, sorted), at most `max_files`."""
    files = _git_files(workspace, max_files) if use_git else None
    if files is None:
        files = _walk(workspace, max_files)
    return sorted(files)


def _git_files(workspace: Path, max_files: int) -> list[str] | None:
    try:
        # Through safe_git: the repository's own config must run nothing (fsmonitor, ...).
        proc = run_git(workspace, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None  # not a work tree (or git will not read it): walk instead
    out: list[str] = []
    for raw in proc.stdout.split(b"\0"):
        if not raw:
            continue
        rel = os.fsdecode(raw)
        # A file deleted but still in the index, or a submodule (a directory), is no file.
        if (workspace / rel).is_file():
            out.append(rel)
            if len(out) >= max_files:
                break
    return out


def _walk(workspace: Path, max_files: int) -> list[str]:
    """The files the ignore rules leave in; a link to a directory is neither entered nor listed."""
    out: list[str] = []
    for found in ignore_walk.walk(workspace):
        if found.is_dir or (found.entry.is_symlink() and found.entry.is_dir()):
            continue
        out.append(found.rel)
        if len(out) >= max_files:
            break
    return out


# ---- fuzzy ranking ------------------------------------------------------------------------


def fuzzy_score(query: str, path: str) -> int | None:
    """How well `path` matches `query` (its characters in order, any case), or None.

    Higher is better: a match at the start of a path segment or word, a run of
    consecutive characters, and matches in the file name count most; long paths a little
    less. The best placement is found greedily from the end of the name backwards, then
    forwards, and the better score kept: cheap, and good enough for a completion list.
    """
    if not query:
        return 0
    q = query.lower()
    p = path.lower()
    if len(p) != len(path):  # a character whose lower case is longer: no case hints
        path = p
    name_start = p.rfind("/") + 1
    best: int | None = None
    for positions in (_forward(q, p), _backward(q, p)):
        if positions is None:
            continue
        score = 0
        for n, i in enumerate(positions):
            score += 1
            if i == 0 or p[i - 1] in "/_-. ":
                score += 8
            elif path[i].isupper() and path[i - 1].islower():
                score += 6
            if n and positions[n - 1] == i - 1:
                score += 5
            if i >= name_start:
                score += 3
        if q in p[name_start:]:
            score += 10 + (15 if p[name_start:].startswith(q) else 0)
        score -= len(path) // 10
        best = score if best is None else max(best, score)
    return best


def _forward(q: str, p: str) -> list[int] | None:
    out, start = [], 0
    for ch in q:
        i = p.find(ch, start)
        if i < 0:
            return None
        out.append(i)
        start = i + 1
    return out


def _backward(q: str, p: str) -> list[int] | None:
    out, end = [], len(p)
    for ch in reversed(q):
        i = p.rfind(ch, 0, end)
        if i < 0:
            return None
        out.append(i)
        end = i
    return out[::-1]


def rank(query: str, paths: list[str], limit: int = 50) -> list[str]:
    """The paths that match `query`, best first (ties: shorter, then alphabetical)."""
    scored = [(s, p) for p in paths if (s := fuzzy_score(query, p)) is not None]
    scored.sort(key=lambda sp: (-sp[0], len(sp[1]), sp[1]))
    return [p for _, p in scored[:limit]]
