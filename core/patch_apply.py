"""Verify a parsed patch against the workspace, then apply it all or nothing.

`plan_patch` reads the files and computes every new content in memory: a path that
leaves the workspace (absolute, `..`, or through a symlink, checked after resolving),
a hunk that does not match, a file that should (not) exist: any of these refuses the
whole patch before a byte is written. `apply_plan` then writes each new content to a
temporary file beside its target and renames them into place; if anything fails
midway, every file already changed is put back.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from .patch import FileOp, Hunk, OpKind, PatchError


def confine(workspace: Path, raw: str) -> Path:
    """The absolute path of `raw` inside `workspace`, or PatchError."""
    if not raw or "\x00" in raw:
        raise PatchError(f"invalid path {raw!r}")
    if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute() or raw.startswith("~"):
        raise PatchError(f"absolute paths are not allowed: {raw!r} (use a path relative to the workspace)")
    if ".." in PurePosixPath(raw.replace("\\", "/")).parts:
        raise PatchError(f"'..' is not allowed in a path: {raw!r}")
    root = workspace.resolve()
    target = (root / raw).resolve()  # follows every symlink on the way, existing or not
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


def _read(path: Path, display: str) -> str:
    if not path.is_file():
        raise PatchError(f"{display}: no such file")
    try:
        return path.read_text(encoding="utf-8")
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


def plan_patch(ops: list[FileOp], workspace: Path) -> list[FileChange]:
    changes: dict[Path, FileChange] = {}

    def current(path: Path, display: str) -> str | None:
        if path in changes:
            return changes[path].new
        return _read(path, display) if path.exists() else None

    for op in ops:
        path = confine(workspace, op.path)
        if op.kind is OpKind.ADD:
            if path.exists() and path not in changes:
                raise PatchError(f"{op.path}: already exists (use 'Update File' to change it)")
            if path.exists() and not path.is_file():
                raise PatchError(f"{op.path}: exists and is not a file")
            content = "\n".join(op.added) + ("\n" if op.added else "")
            _record(changes, path, op.path, content)
        elif op.kind is OpKind.DELETE:
            if current(path, op.path) is None:
                raise PatchError(f"{op.path}: no such file to delete")
            _record(changes, path, op.path, None)
        else:
            text = current(path, op.path)
            if text is None:
                raise PatchError(f"{op.path}: no such file to update")
            updated = _apply_hunks(text, op.hunks, op.path) if op.hunks else text
            if op.move_to:
                dest = confine(workspace, op.move_to)
                if dest.exists() and dest != path:
                    raise PatchError(f"{op.move_to}: already exists, cannot move {op.path} there")
                _record(changes, path, op.path, None)
                _record(changes, dest, op.move_to, updated)
            else:
                _record(changes, path, op.path, updated)
    return [c for c in changes.values() if c.old != c.new]


def _record(changes: dict[Path, FileChange], path: Path, display: str, new: str | None) -> None:
    if path in changes:
        changes[path].new = new
    else:
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        changes[path] = FileChange(path, display, old, new)


def apply_plan(changes: list[FileChange]) -> None:
    """Write every change, or none: on any failure the files written so far are restored."""
    staged: list[tuple[FileChange, Path | None]] = []
    try:
        for change in changes:  # stage every new content first: most failures happen here
            tmp = None
            if change.new is not None:
                change.path.parent.mkdir(parents=True, exist_ok=True)
                fd, name = tempfile.mkstemp(prefix=".rivulet-", dir=change.path.parent)
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                    f.write(change.new)
                if change.old is not None:
                    os.chmod(name, change.path.stat().st_mode & 0o7777)
                tmp = Path(name)
            staged.append((change, tmp))
    except OSError as exc:
        for _, tmp in staged:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        raise PatchError(f"cannot write {change.display}: {exc.strerror or exc}") from None
    done: list[FileChange] = []
    try:
        for change, tmp in staged:
            if tmp is not None:
                os.replace(tmp, change.path)
            else:
                change.path.unlink()
            done.append(change)
    except OSError as exc:
        for change in reversed(done):  # put back what was already changed
            if change.old is None:
                change.path.unlink(missing_ok=True)
            else:
                change.path.write_text(change.old, encoding="utf-8")
        for _, tmp in staged:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
        raise PatchError(f"cannot apply the patch ({exc.strerror or exc}); no file was changed") from None
