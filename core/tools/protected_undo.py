"""Putting a workspace's protected paths back as they were before a sandboxed command:
what it created is removed, what it changed is written back from the bytes the snapshot
kept. Every step is taken from the workspace's descriptor without following a link, and
only what was really done is reported."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from rivulet.core.tools.patch_apply import _open_parent, _write_temp
from rivulet.core.tools.protected_snapshot import KEEP_BYTES, Change, Snapshot, read_entry


def undo(before: Snapshot, changes: list[Change]) -> list[str]:
    """Put the protected paths back as they were: remove what was created, write back what
    changed. Every step is done from the workspace's descriptor without following a
    link. One line per path for the model and the user, saying what was done."""
    lines = []
    root_fd = os.open(before.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for change in changes:
            try:
                line = _undo_one(before, change, root_fd)
            except OSError as exc:
                line = f"{change.path}: could not be undone ({exc.strerror or exc})"
            if line is not None:  # None: there was nothing to undo (never reported as done)
                lines.append(line)
    finally:
        os.close(root_fd)
    return lines


def _undo_one(before: Snapshot, change: Change, root_fd: int) -> str | None:
    rel = change.path
    if change.what == "created":
        if rel.endswith("/pyvenv.cfg") and rel[: -len("/pyvenv.cfg")] not in before.seen:
            rel = rel[: -len("/pyvenv.cfg")]  # a whole new virtualenv: remove it, not only its marker
        parts = Path(rel).parts
        try:
            dir_fd = _open_parent(root_fd, parts, create=False)
        except FileNotFoundError:
            return None
        try:
            return f"{rel}: removed" if _remove(dir_fd, parts[-1]) else None
        finally:
            os.close(dir_fd)
    old = before.files.get(rel)
    if old is not None and not old.differs(read_entry(str(before.root / rel), [KEEP_BYTES + 1])):
        return None  # as it was already
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


def _remove(dir_fd: int, name: str) -> bool:
    """Whether there was something to remove."""
    if _is_dir(dir_fd, name):
        shutil.rmtree(name, dir_fd=dir_fd)  # the descriptor-based walk: a link inside is removed, not followed
        return True
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    return True
