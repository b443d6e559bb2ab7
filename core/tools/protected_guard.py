"""After a sandboxed command: did it create or change a protected path? Then ask.

The question is the one a patch touching a protected path gets (it asks under every
policy but `never-ask`, and "always" answers only this once): the paths, why each is
protected and what is in them now. Kept: the model is told. Not kept (or stopped): the
changes are undone and the model is told what was undone, so that it does not try the
same thing again unasked.
"""

from __future__ import annotations

import os
import stat

from rivulet.core import items as it
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.protected_snapshot import Change, Snapshot, compare, take, undo
from rivulet.core.tools.turn_diff import file_diff
from rivulet.core.turn.bus import EventBus, Notice
from rivulet.core.turn.tool_api import StopTurn

_SHOWN_BYTES = 64 * 1024  # of one file's new content, in the question
_SHOWN_FILES = 20


async def settle(before: Snapshot, patterns: tuple[str, ...], call: it.Item, approvals: ApprovalPolicy,
                 bus: EventBus | None, done: it.Item) -> str:
    """"" when nothing protected changed or the user keeps it; else what was undone."""
    changes = compare(before, take(before.root, patterns))
    if not changes:
        return ""
    marks = [f"{c.what} {c.path}" for c in changes]
    request = ApprovalRequest("patch", it.call_id(call) or "", "keep what the command wrote: " + ", ".join(marks),
                              detail=_detail(before, changes), files=marks,
                              reason="a sandboxed command wrote these protected paths: yes keeps what it wrote, "
                                     "no undoes it",
                              protected=[f"{c.path}: {c.why}" if not c.why.startswith(c.path) else c.why
                                         for c in changes])
    decision = await approvals.decide(request)
    if decision in (Decision.YES, Decision.ALWAYS):
        return ("\nNote: this command changed protected paths (they can make code run later); the user chose to "
                "keep them: " + ", ".join(marks))
    lines = undo(before, changes)
    text = ("\nThis command created or changed protected paths, which can make code run later (editor tasks, "
            "git hooks and settings, virtualenvs, CI workflows, ...). The user did not keep the changes, so "
            "rivulet undid them:\n" + "\n".join(f"- {line}" for line in lines)
            + "\nDo not make these changes again in another way; ask the user if they are needed.")
    if bus is not None:
        bus.publish(Notice("Undid what a command wrote to protected paths: " + "; ".join(lines)))
    if decision is Decision.STOP:
        raise StopTurn(with_note(done, text), "you did not keep what a command wrote")
    return text


def with_note(done: it.Item, note: str) -> it.Item:
    """The call's output with `note` after it (a text part, when the output is a list)."""
    if not note:
        return done
    if isinstance(done["output"], list):  # an MCP result with images
        return {**done, "output": [*done["output"], {"type": "input_text", "text": note.lstrip()}]}
    return {**done, "output": str(done["output"]) + note}


def _detail(before: Snapshot, changes: list[Change]) -> str:
    """What is there now, as a diff against what was (each file, then under each directory)."""
    out = []
    for change in changes:
        path = str(before.root / change.path)
        files = _files_under(path) if os.path.isdir(path) and not os.path.islink(path) else [path]
        for file in files:
            rel = os.path.relpath(file, before.root)
            old = before.files.get(rel)
            old_text = old.data.decode("utf-8", "replace") if old is not None and old.data is not None else None
            if os.path.islink(file):
                out.append(f"{rel} -> {os.readlink(file)}\n")
                continue
            out.append(file_diff(rel, old_text, _read_regular(file)) or f"{rel}: {change.what}\n")
    return "".join(out)


def _files_under(path: str) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(path):  # links are not followed
        dirs.sort()
        out += [os.path.join(folder, n) for n in sorted(names)]
        if len(out) >= _SHOWN_FILES:
            break
    return out[:_SHOWN_FILES]


def _read_regular(path: str) -> str | None:
    """A regular file's start; never blocks on a FIFO a command left there."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, _SHOWN_BYTES).decode("utf-8", "replace")
    finally:
        os.close(fd)
