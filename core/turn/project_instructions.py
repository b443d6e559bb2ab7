"""Project instructions: the AGENTS.md files that apply to the workspace, as Codex reads them.

The project root is the nearest ancestor of the workspace (itself included) that holds
a `.git` entry (a directory, or a file in a worktree or submodule); without one, the
workspace alone is searched. From the root down to the workspace, each directory
contributes its `AGENTS.override.md` if it has one, else its `AGENTS.md`, so a deeper
(more specific) file comes later and the model reads it last.

A budget caps what is sent (Codex's `project_doc_max_bytes`, 32 KiB by default): each
file is cut to what is left of it, and files after the budget is spent are listed as
skipped. Nothing here raises: an unreadable file is skipped with a warning.

The workspace is as hostile as the model (a sandboxed command can plant a link), and
it may lie inside a larger repository (a monorepo's `app/`, a home directory kept as a
dotfiles repository) whose other files the sandbox cannot even see. So a file is read
only when it is a regular file, and: in the workspace, its name may be a link only to
somewhere inside the workspace (`AGENTS.md -> ../.env` is refused); above it, an
enclosing repository's file is read at its own path, never through a link. The open
walks the names from the workspace's descriptor with O_NOFOLLOW, and fstat judges what
was opened: a directory swapped for a link after the check fails the open. A link out,
`/proc/self/environ`, a device or a FIFO is refused, named in `refused` (one sanitised
line each, shown as a notice and in /status).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import msgspec

from rivulet.core.sanitize import one_row

DEFAULT_MAX_BYTES = 32 * 1024
FILENAMES = ("AGENTS.override.md", "AGENTS.md")  # the first one a directory has is used


class InstructionFile(msgspec.Struct, frozen=True, dict=True):
    path: Path
    size: int  # bytes on disk
    used: int  # bytes sent (less than `size` when cut)

    @property
    def truncated(self) -> bool:
        return self.used < self.size


class ProjectInstructions(msgspec.Struct, dict=True):
    root: Path | None  # the project root, or None when the workspace is not in a repository
    files: list[InstructionFile] = msgspec.field(default_factory=list)
    project_text: str = ""  # the AGENTS.md part alone
    text: str | None = None  # what goes into the request's `instructions` (None: nothing)
    warnings: list[str] = msgspec.field(default_factory=list)
    refused: list[str] = msgspec.field(default_factory=list)  # files not read, and why (one line each)

    @property
    def total_bytes(self) -> int:
        return sum(f.used for f in self.files)

    def combined(self, extra: str | None) -> str | None:
        """The AGENTS.md text with `extra` (the configured `instructions`) appended."""
        parts = [p for p in (self.project_text, (extra or "").strip()) if p]
        return "\n\n".join(parts) or None


def find_root(workspace: Path) -> Path | None:
    """The nearest ancestor of `workspace` (itself included) with a `.git` entry."""
    for directory in (workspace, *workspace.parents):
        if (directory / ".git").exists():
            return directory
    return None


def candidate_dirs(workspace: Path) -> tuple[Path | None, list[Path]]:
    """The project root and the directories searched, root first."""
    workspace = workspace.resolve()
    root = find_root(workspace)
    if root is None:
        return None, [workspace]
    chain = [workspace]
    while chain[-1] != root:
        chain.append(chain[-1].parent)
    return root, chain[::-1]


def _cut(data: bytes, limit: int) -> bytes:
    """At most `limit` bytes, never ending inside a UTF-8 character."""
    if len(data) <= limit:
        return data
    cut = data[:limit]
    return cut.decode("utf-8", "ignore").encode("utf-8")


_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC  # O_NONBLOCK: a FIFO
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OUT_OF_WORKSPACE = "it is a link to outside the workspace"
LINK_ABOVE = "it is a link, and a file above the workspace is read only at its own path"
NOT_REGULAR = "it is not a regular file"


def _target_in_workspace(workspace: Path, name: str) -> tuple[str, ...] | None:
    """The parts, relative to `workspace` (a real path), of where the link `name` in it
    leads, or None when that is outside the workspace (or the workspace itself)."""
    real = Path(os.path.realpath(workspace / name))
    if real == workspace or not real.is_relative_to(workspace):
        return None
    return real.relative_to(workspace).parts


def _regular(fd: int) -> tuple[int, int] | str:
    """(the descriptor, the size) when it is a regular file, else why not (closed then)."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return NOT_REGULAR
    os.set_blocking(fd, True)
    return fd, info.st_size


def _open_in_workspace(workspace: Path, name: str) -> tuple[int, int] | str:
    """`name` in the workspace, opened: itself, or where its link leads when that is inside
    the workspace, each part opened from the workspace's descriptor with O_NOFOLLOW (a
    part that became a link since fails). Else why it is refused. Raises OSError."""
    parts: tuple[str, ...] | None = (name,)
    if os.path.islink(workspace / name):
        parts = _target_in_workspace(workspace, name)
    if parts is None:
        return OUT_OF_WORKSPACE
    fd = os.open(workspace, _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
        opened = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a part is a link now
            return OUT_OF_WORKSPACE
        raise
    finally:
        os.close(fd)
    return _regular(opened)


def _open_own(path: Path) -> tuple[int, int] | str:
    """An enclosing repository's file at its own path (its directories are real paths,
    outside the sandbox's reach), never through a link. Raises OSError."""
    try:
        fd = os.open(path, _FILE_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return LINK_ABOVE
        raise
    return _regular(fd)


def load(workspace: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, per_file_max_bytes: int | None = None,
         extra: str | None = None) -> ProjectInstructions:
    """The project's AGENTS.md files and the request's instructions: their text, then
    `extra` (the configured `instructions`) appended. `max_bytes = 0` reads nothing."""
    root, dirs = candidate_dirs(workspace)
    result = ProjectInstructions(root)
    budget = max(0, max_bytes)
    per_file = budget if per_file_max_bytes is None else max(0, per_file_max_bytes)
    parts: list[str] = []
    ws = dirs[-1]  # resolved
    for directory in dirs if budget else []:
        path = next((directory / n for n in FILENAMES if os.path.lexists(directory / n)), None)
        if path is None or (path.is_dir() and not path.is_symlink()):
            continue
        try:
            opened = _open_in_workspace(ws, path.name) if directory == ws else _open_own(path)
            if isinstance(opened, str):
                result.refused.append(one_row(f"{path} not read: {opened}"))
                result.warnings.append(result.refused[-1])
                continue
            fd, size = opened
            with os.fdopen(fd, "rb") as f:  # never more than can be used: a huge file costs nothing
                data = f.read(min(budget, per_file) + 1)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a link loop (resolve, before 3.13)
            result.warnings.append(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
            continue
        if not data.strip():
            continue
        if budget <= 0:
            result.warnings.append(f"{path} skipped: the project instructions budget ({max_bytes} bytes) is spent")
            continue
        used = _cut(data, min(budget, per_file))
        budget -= len(used)
        size = max(size, len(data))
        result.files.append(InstructionFile(path, size, len(used)))
        if len(used) < size:
            result.warnings.append(f"{path} cut to {len(used)} of {size} bytes "
                                   f"(project_instructions_max_bytes = {max_bytes})")
        where = path.relative_to(root) if root is not None else Path(path.name)
        parts.append(f"# {where}\n\n{used.decode('utf-8', 'replace').strip()}")
    result.project_text = "\n\n".join(parts)
    result.text = result.combined(extra)
    return result
