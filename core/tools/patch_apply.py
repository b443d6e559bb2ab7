"""Verify a parsed patch against the workspace, then apply it all or nothing.

`plan_patch` reads the files and computes every new content in memory: a path that
leaves the workspace (absolute, `..`, or through a symlink, checked after resolving),
a hunk that does not match, a file that should (not) exist: any of these refuses the
whole patch before a byte is written. `apply_plan` then writes each new content to a
temporary file beside its target and renames them into place, every path component
opened from the workspace's descriptor with O_NOFOLLOW (a directory swapped for a
symlink after the plan cannot redirect a write); if anything fails midway, every file
already changed is put back. New files follow the umask, a moved file keeps its mode,
a CRLF file stays CRLF.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from rivulet.core.tools.patch_format import FileOp, Hunk, OpKind, PatchError


def confine(workspace: Path, raw: str) -> Path:
    """The absolute path of `raw` inside `workspace`, or PatchError."""
    if not raw or "\x00" in raw:
        raise PatchError(f"invalid path {raw!r}")
    if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute() or raw.startswith("~"):
        raise PatchError(f"absolute paths are not allowed: {raw!r} (use a path relative to the workspace)")
    if ".." in PurePosixPath(raw.replace("\\", "/")).parts:
        raise PatchError(f"'..' is not allowed in a path: {raw!r}")
    root = workspace.resolve()
    try:
        target = (root / raw).resolve()  # follows every symlink on the way, existing or not
    except OSError as exc:  # a component changed while it was being resolved
        raise PatchError(f"cannot check {raw!r}: {exc.strerror or exc}") from None
    if target != root and root not in target.parents:
        raise PatchError(f"{raw!r} resolves outside the workspace (through a symlink)")
    if target == root:
        raise PatchError(f"{raw!r} is the workspace itself, not a file")
    return target


@dataclass
class FileChange:
    path: Path  # absolute, confined
    display: str  # as the patch named it
    old: str | None  # None: the file does not exist yet
    new: str | None  # None: the file is deleted
    root: Path | None = None  # the workspace: at write time every component is opened from it
    mode: int | None = None  # the mode a new file takes (a moved file keeps its own)

    @property
    def parts(self) -> tuple[str, ...]:
        root = self.root or self.path.parent
        return self.path.relative_to(root).parts


def _read(path: Path, display: str) -> str:
    if not path.is_file():
        raise PatchError(f"{display}: no such file")
    try:
        return path.read_bytes().decode("utf-8")  # bytes: a CRLF file stays CRLF
    except UnicodeDecodeError:
        raise PatchError(f"{display}: not a UTF-8 text file") from None


def _seek(lines: list[str], pattern: list[str], start: int, at_eof: bool) -> int:
    """Where `pattern` occurs in `lines` at or after `start`, trying exact matches first,
    then ignoring trailing and then all surrounding whitespace (models drift on it)."""
    if not pattern:
        return len(lines) if at_eof else start
    for norm in (lambda s: s, str.rstrip, str.strip):
        want = [norm(p) for p in pattern]
        first = len(lines) - len(pattern) if at_eof else start
        for i in range(max(first, start), len(lines) - len(pattern) + 1):
            if all(norm(lines[i + k]) == want[k] for k in range(len(pattern))):
                return i
    return -1


def _apply_hunks(text: str, hunks: list[Hunk], display: str) -> str:
    """The file with the hunks applied; a CRLF file keeps CRLF (added lines too)."""
    if "\r\n" in text and text.count("\r\n") * 2 >= text.count("\n"):
        return _apply_hunks(text.replace("\r\n", "\n"), hunks, display).replace("\n", "\r\n")
    had_newline = text.endswith("\n")
    lines = text[:-1].split("\n") if had_newline else (text.split("\n") if text else [])
    pos = 0
    for n, hunk in enumerate(hunks, 1):
        if hunk.anchor is not None:
            at = _seek(lines, [hunk.anchor], pos, False)
            if at < 0:
                raise PatchError(f"{display}: hunk {n}: cannot find the line {hunk.anchor!r}")
            pos = at + 1
        old = hunk.old
        at = _seek(lines, old, pos, hunk.at_eof)
        if at < 0:
            shown = "\n".join(old[:6])
            raise PatchError(f"{display}: hunk {n} does not match the file; expected lines:\n{shown}")
        # Context lines keep the file's own text (the match may have ignored whitespace).
        replacement: list[str] = []
        cursor = at
        for tag, line in hunk.lines:
            if tag == " ":
                replacement.append(lines[cursor])
            elif tag == "+":
                replacement.append(line)
            cursor += tag != "+"
        lines[at:at + len(old)] = replacement
        pos = at + len(replacement)
    out = "\n".join(lines)
    # Keep the file's last-line convention; a file that was empty gets a final newline.
    return out + "\n" if lines and (had_newline or not text) else out


def plan_patch(ops: list[FileOp], workspace: Path, held: Mapping[Path, str] | None = None) -> list[FileChange]:
    """The changes `ops` make (PatchError if one cannot apply). `held`: a file's text as the
    editor holds it (core/tools/editor_files.py), read instead of the disk's."""
    changes: dict[Path, FileChange] = {}
    root = workspace.resolve()
    held = held or {}

    def current(path: Path, display: str) -> str | None:
        if path in changes:
            return changes[path].new
        if path in held:
            return held[path]
        return _read(path, display) if path.exists() else None

    def record(path: Path, display: str, new: str | None, mode: int | None = None) -> None:
        if path in changes:
            changes[path].new = new
            changes[path].mode = mode if mode is not None else changes[path].mode
        else:
            old = held[path] if path in held else _read(path, display) if path.is_file() else None
            changes[path] = FileChange(path, display, old, new, root, mode)

    for op in ops:
        path = confine(workspace, op.path)
        if op.kind is OpKind.ADD:
            if path.exists() and path not in changes:
                raise PatchError(f"{op.path}: already exists (use 'Update File' to change it)")
            if path.exists() and not path.is_file():
                raise PatchError(f"{op.path}: exists and is not a file")
            content = "\n".join(op.added) + ("\n" if op.added else "")
            record(path, op.path, content)
        elif op.kind is OpKind.DELETE:
            if current(path, op.path) is None:
                raise PatchError(f"{op.path}: no such file to delete")
            record(path, op.path, None)
        else:
            text = current(path, op.path)
            if text is None:
                raise PatchError(f"{op.path}: no such file to update")
            updated = _apply_hunks(text, op.hunks, op.path) if op.hunks else text
            if op.move_to:
                dest = confine(workspace, op.move_to)
                if dest.exists() and dest != path:
                    raise PatchError(f"{op.move_to}: already exists, cannot move {op.path} there")
                mode = changes[path].mode if path in changes else path.stat().st_mode & 0o7777
                record(path, op.path, None)
                record(dest, op.move_to, updated, mode)  # a moved file keeps its mode
            else:
                record(path, op.path, updated)
    return [c for c in changes.values() if c.old != c.new]


# ---- writing, confined at write time ------------------------------------------------------
#
# The plan checked every path, but a directory can be swapped for a symlink between the
# plan and the write. So nothing is written through a path: every component is opened
# from a descriptor of the workspace with O_NOFOLLOW, and the file is created, renamed
# or removed relative to its parent's descriptor. A symlink anywhere on the way fails
# the write instead of following it.

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_parent(root_fd: int, parts: tuple[str, ...], create: bool) -> int:
    """A descriptor of the directory holding parts[-1], walked from the workspace."""
    fd = os.dup(root_fd)
    try:
        for part in parts[:-1]:
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)  # the umask decides, as for any new directory
                except FileExistsError:
                    pass
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def _write_temp(dir_fd: int, data: bytes, mode: int | None) -> str:
    """A new temporary file in the directory, holding `data`: its name."""
    for _ in range(100):
        name = f".rivulet-{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o666 if mode is None else 0o600, dir_fd=dir_fd)
        except FileExistsError:
            continue
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(name, dir_fd=dir_fd)
            raise
        os.close(fd)
        return name
    raise FileExistsError("no free temporary name")


def _mode_of(dir_fd: int, name: str) -> int | None:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else None


@dataclass
class _Staged:
    change: FileChange
    dir_fd: int
    name: str  # the file's name in its directory
    tmp: str | None  # the staged new content (None: a deletion)


def apply_plan(changes: list[FileChange]) -> None:
    """Write every change, or none: on any failure the files written so far are restored."""
    for change in changes:  # encode first: text that cannot be written fails before any file is touched
        if change.new is not None:
            try:
                change.new.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise PatchError(f"cannot write {change.display}: not encodable as UTF-8 ({exc.reason})") from None
    roots: dict[Path, int] = {}
    staged: list[_Staged] = []
    current = None
    try:
        for current in changes:  # stage every new content first: most failures happen here
            root = current.root or current.path.parent
            if root not in roots:
                roots[root] = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            parts = current.parts
            dir_fd = _open_parent(roots[root], parts, create=current.new is not None)
            entry = _Staged(current, dir_fd, parts[-1], None)
            staged.append(entry)
            if current.new is not None:
                mode = _mode_of(dir_fd, entry.name) if current.old is not None else current.mode
                entry.tmp = _write_temp(dir_fd, current.new.encode("utf-8"), mode)
    except OSError as exc:
        _discard(staged, roots)
        what = current.display if current is not None else "the patch"
        raise PatchError(f"cannot write {what}: {_why(exc)}") from None
    done: list[_Staged] = []
    try:
        for entry in staged:
            if entry.tmp is not None:
                os.replace(entry.tmp, entry.name, src_dir_fd=entry.dir_fd, dst_dir_fd=entry.dir_fd)
                entry.tmp = None
            else:
                os.unlink(entry.name, dir_fd=entry.dir_fd)
            done.append(entry)
    except OSError as exc:
        for entry in reversed(done):  # put back what was already changed
            _restore(entry)
        _discard(staged, roots)
        raise PatchError(f"cannot apply the patch ({_why(exc)}); no file was changed") from None
    _discard(staged, roots)


def _restore(entry: _Staged) -> None:
    change = entry.change
    try:
        if change.old is None:
            os.unlink(entry.name, dir_fd=entry.dir_fd)
        else:
            tmp = _write_temp(entry.dir_fd, change.old.encode("utf-8"), None)
            os.replace(tmp, entry.name, src_dir_fd=entry.dir_fd, dst_dir_fd=entry.dir_fd)
    except OSError:
        pass


def _discard(staged: list[_Staged], roots: dict[Path, int]) -> None:
    """Remove temporary files still staged and close every descriptor."""
    for entry in staged:
        if entry.tmp is not None:
            try:
                os.unlink(entry.tmp, dir_fd=entry.dir_fd)
            except OSError:
                pass
        os.close(entry.dir_fd)
    for fd in roots.values():
        os.close(fd)
    staged.clear()
    roots.clear()


def _why(exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "a path component is a symlink or not a directory (it changed after the patch was checked)"
    return exc.strerror or str(exc)
