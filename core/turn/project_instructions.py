"""Project instructions: the AGENTS.md files that apply to the workspace, as Codex reads them.

The project root is the nearest ancestor of the workspace (itself included) that holds
a `.git` entry (a directory, or a file in a worktree or submodule); without one, the
workspace alone is searched. From the root down to the workspace, each directory
contributes its `AGENTS.override.md` if it has one, else its `AGENTS.md`, so a deeper
(more specific) file comes later and the model reads it last.

A budget caps what is sent (Codex's `project_doc_max_bytes`, 32 KiB by default): each
file is cut to what is left of it, and files after the budget is spent are listed as
skipped. Nothing here raises: an unreadable file is skipped with a warning.

The repository is as hostile as the model (a sandboxed command can plant a link): a file
is read only when it is a regular file inside the project (the root, or the workspace
without one). `AGENTS.md -> ~/.ssh/id_rsa`, a link to `/proc/self/environ`, a device or
a FIFO is refused, named in `refused` (one line each, shown as a notice and in /status).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import msgspec

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


def _open_inside(path: Path, inside: Path) -> tuple[int, int] | str:
    """(an open descriptor, the size) of `path` when it is a regular file whose real
    path is inside `inside`; else why it is refused. Raises OSError."""
    real = path.resolve()
    if not real.is_relative_to(inside):
        return "it is a link to outside the repository"
    # O_NOFOLLOW: the last component cannot become a link after the check; O_NONBLOCK:
    # a FIFO does not hang the open; fstat judges what was opened, not the name.
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:  # what was opened (a directory on the way swapped for a link after `resolve`)
        opened = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # no /proc here
        opened = real
    info = os.fstat(fd)
    if not opened.is_relative_to(inside) or not stat.S_ISREG(info.st_mode):
        os.close(fd)
        return "it is not a regular file" if opened.is_relative_to(inside) else "it is a link to outside the repository"
    os.set_blocking(fd, True)
    return fd, info.st_size


def load(workspace: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, per_file_max_bytes: int | None = None,
         extra: str | None = None) -> ProjectInstructions:
    """The project's AGENTS.md files and the request's instructions: their text, then
    `extra` (the configured `instructions`) appended. `max_bytes = 0` reads nothing."""
    root, dirs = candidate_dirs(workspace)
    result = ProjectInstructions(root)
    budget = max(0, max_bytes)
    per_file = budget if per_file_max_bytes is None else max(0, per_file_max_bytes)
    parts: list[str] = []
    inside = root if root is not None else workspace.resolve()
    for directory in dirs if budget else []:
        path = next((directory / n for n in FILENAMES if os.path.lexists(directory / n)), None)
        if path is None or path.is_dir():
            continue
        try:
            opened = _open_inside(path, inside)
            if isinstance(opened, str):
                result.refused.append(f"{path} not read: {opened}")
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
