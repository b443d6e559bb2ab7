"""A hook run outside the sandbox must not run anything a sandboxed command could write.

The workspace is the sandboxed command's to write, so with `hooks_sandbox = "off"` a
hook whose program lies there (by its own path, by a PATH lookup, or through a link
that lies there, even when the link points elsewhere: it can be repointed), or that
names a file there as an argument (`sh check.sh`), is refused, in one line saying what
to do instead (`refusal`). The same names are protected paths while the hooks are
configured (`protected_patterns`), so the sandbox cannot change them silently either.

Its git is not pointed at the workspace's state either: `git_env` adds, on git's
command-line level (above every repository's own config), `safe.bareRepository =
explicit` (a directory that a sandboxed command turned into a bare repository is not
taken as one: git 2.38 and later), `core.fsmonitor = false` and `core.hooksPath =
/dev/null` (what a `git status` or `git commit` would run from a repository's config).

Not covered, and said in the README: a tool that runs code it finds in its working
directory (`make`, `npm test`, `pytest`'s conftest.py, `python -m`) runs the
workspace's code; so does a hook that executes the `{files}` it is given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rivulet.core.sanitize import one_row

MAX_LINKS = 40  # as the kernel's limit: a loop ends here
GIT_SETTINGS = (("safe.bareRepository", "explicit"), ("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"))
FILES = "{files}"


@dataclass(frozen=True)
class Reach:
    """What a hook's command reaches in the workspace."""

    program: str | None  # where its program is, found as exec would find it (None: not found)
    names: tuple[tuple[str, str], ...]  # (what, relative path): every workspace entry on the way
    files: tuple[str, ...]  # those of them that are not directories: the ones to protect


def _walk(path: str) -> tuple[list[str], str]:
    """Every directory entry looked up on the way to the absolute `path`, links followed
    as the kernel follows them, and the real path it ends at."""
    pending = [p for p in path.split("/") if p][::-1]  # a stack: the next part last
    current, seen, links = "/", [], 0
    while pending:
        part = pending.pop()
        if part == ".":
            continue
        if part == "..":
            current = os.path.dirname(current)  # `current` is a real path: its parent is too
            continue
        entry = os.path.join(current, part)
        seen.append(entry)
        try:
            target = os.readlink(entry) if links < MAX_LINKS else None
        except OSError:  # not a link (or gone)
            target = None
        if target is None:
            current = entry
            continue
        links += 1
        pending.extend(p for p in reversed(target.split("/")) if p)
        if target.startswith("/"):
            current = "/"
    return seen, current


def _find(program: str, cwd: str, path_env: str) -> str | None:
    """Where exec would find `program` run in `cwd` (a relative PATH entry is relative to it)."""
    if "/" in program:
        return os.path.join(cwd, program)
    for folder in path_env.split(os.pathsep):
        candidate = os.path.join(cwd, folder or ".", program)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _inside(workspace: str, path: str) -> str | None:
    return os.path.relpath(path, workspace) if path.startswith(workspace.rstrip("/") + "/") else None


def reach(command: Sequence[str], workspace: str, path_env: str | None = None) -> Reach:
    """The workspace entries that `command` (run in `workspace`) depends on: its program's
    path, every link on the way, where it ends, and the same for each argument that names
    an existing file (`{files}` and options are not looked at)."""
    ws = os.path.realpath(workspace)
    program = _find(command[0], ws, os.environ.get("PATH", os.defpath) if path_env is None else path_env)
    names: list[tuple[str, str]] = []
    files: list[str] = []
    targets = [("its program", program)] if program is not None else []
    for arg in command[1:]:
        path = os.path.join(ws, arg)
        if arg and not arg.startswith("-") and arg != FILES and os.path.lexists(path) and not os.path.isdir(path):
            targets.append(("the file it names", path))
    for what, path in targets:
        seen, real = _walk(path)
        for entry in (*seen, real):
            rel = _inside(ws, entry)
            if rel is None:
                continue
            if (what, rel) not in names:
                names.append((what, rel))
            if rel not in files and (entry == real or not _is_dir(entry)):
                files.append(rel)
    return Reach(program, tuple(names), tuple(files))


def _is_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def refusal(found: Reach) -> str | None:
    """Why a hook that reaches into the workspace is not run outside the sandbox, or None."""
    if not found.names:
        return None
    what, rel = found.names[-1]  # the file itself, or the last link on the way
    return (f"not run: {what} ({one_row(rel)}) is in the workspace, where a sandboxed command can change it, and "
            'hooks_sandbox = "off" would run it outside the sandbox; keep it outside the workspace, '
            'or set hooks_sandbox = "workspace-write"')


def protected_patterns(commands: Sequence[Sequence[str]], workspace: str) -> list[str]:
    """`protected_paths` patterns for the workspace names the commands reach. A name at the
    workspace's root is a pattern without a slash, which matches that name at any depth
    (the patterns have no way to say "at the root only"): more is asked, never less."""
    out: list[str] = []
    for command in commands:
        for rel in reach(command, workspace).files:
            pattern = re.sub(r"([*?\[])", r"[\1]", rel)  # a name is matched as itself, not as a glob
            if pattern not in out:
                out.append(pattern)
    return out


def git_env(env: dict[str, str]) -> dict[str, str]:
    """`env` with GIT_SETTINGS added after the caller's own GIT_CONFIG_COUNT entries."""
    out = dict(env)
    count = env.get("GIT_CONFIG_COUNT", "0")
    first = int(count) if count.isdigit() else 0
    for n, (key, value) in enumerate(GIT_SETTINGS, first):
        out[f"GIT_CONFIG_KEY_{n}"], out[f"GIT_CONFIG_VALUE_{n}"] = key, value
    out["GIT_CONFIG_COUNT"] = str(first + len(GIT_SETTINGS))
    return out
