"""Around a sandboxed command: the protected paths before it, and what it did to them.

`Guard` is one session's: its walks remember every protected path they found, so that a
walk cut short (more than MAX_ENTRIES names, say a flood a command left) still binds
them read-only and compares them. What such a walk could not list cannot be checked,
so it fails closed: `unchecked` is the reason the command's own question carries (it
asks under every policy but `never-ask`); a command that leaves the workspace too large
to walk is asked about afterwards. Binding the unlisted folders read-only instead would
need a mount for each (tens of thousands after a flood of folders) and would break
ordinary writes in a large repository without a word.

After the command, the question is the one a patch touching a protected path gets (it
asks under every policy but `never-ask`, and "always" answers only this once): the
paths, why each is protected and what is in them now. Kept: the model is told. Not kept
(or stopped): the changes are undone and the model is told what was undone, so that it
does not try the same thing again unasked.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rivulet.core import items as it
from rivulet.core.tools import protected_snapshot
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.protected_snapshot import Change, Memory, Snapshot, compare, take
from rivulet.core.tools.protected_undo import undo
from rivulet.core.tools.turn_diff import file_diff
from rivulet.core.turn.bus import EventBus, Notice
from rivulet.core.turn.tool_api import StopTurn

_SHOWN_BYTES = 64 * 1024  # of one file's new content, in the question
_SHOWN_FILES = 20


class Guard:
    """The workspace's protected paths for one session: each walk, with what earlier ones found."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.patterns: tuple[str, ...] = ()
        self.memory = Memory()

    def take(self, patterns: tuple[str, ...] | None = None) -> Snapshot:
        """`patterns`: the setting now (hooks add theirs); the walk after a command uses those before it."""
        if patterns is not None:
            self.patterns = patterns
        return take(self.root, self.patterns, self.memory)


def unchecked(snap: Snapshot) -> list[str]:
    """Why a command must be asked about when the walk was cut short (else nothing)."""
    if not snap.cut:
        return []
    shown = ", ".join(snap.cut[:3]) + (f" and {len(snap.cut) - 3:,} more" if len(snap.cut) > 3 else "")
    return [f"the workspace holds more names than rivulet checks ({snap.names:,} listed, the limit is "
            f"{protected_snapshot.MAX_ENTRIES:,}): in the folders it could not list ({shown}) a command can plant "
            "git hooks, editor tasks or .pth files unseen; the protected paths found before stay read-only"]


async def settle(guard: Guard, before: Snapshot, call: it.Item, approvals: ApprovalPolicy, bus: EventBus | None,
                 done: it.Item, accepted: bool = False) -> str:
    """"" when nothing protected changed or the user keeps it; else what was undone.
    `accepted`: the user let the command run knowing the walk was cut short (then a walk
    cut short after it asks only about what it found)."""
    after = guard.take()
    changes = compare(before, after)
    unseen = [] if accepted else unchecked(after) or unchecked(before)
    if not changes and not unseen:
        return ""
    marks = [f"{c.what} {c.path}" for c in changes]
    title = "keep what the command wrote" + (": " + ", ".join(marks) if marks else " (rivulet could not check it all)")
    request = ApprovalRequest("patch", it.call_id(call) or "", title, detail=_detail(before, changes), files=marks,
                              heading="Keep what the command wrote",
                              reason="a sandboxed command wrote these protected paths: yes keeps what it wrote, "
                                     "no undoes it" if changes else
                                     "a sandboxed command left more names than rivulet checks: yes keeps what it "
                                     "wrote, no undoes what rivulet can see (nothing, here)",
                              protected=[f"{c.path}: {c.why}" if not c.why.startswith(c.path) else c.why
                                         for c in changes] + unseen)
    decision = await approvals.decide(request)
    if decision in (Decision.YES, Decision.ALWAYS):
        return ("\nNote: this command changed protected paths (they can make code run later); the user chose to "
                "keep them: " + ", ".join(marks) if marks else
                "\nNote: this command left more names in the workspace than rivulet checks for protected paths; "
                "the user chose to keep what it wrote")
    lines = undo(before, changes)
    text = ("\nThis command created or changed protected paths, which can make code run later (editor tasks, "
            "git hooks and settings, virtualenvs, CI workflows, ...). The user did not keep the changes, so "
            "rivulet undid them:\n" + "\n".join(f"- {line}" for line in lines) if lines else
            "\nThe user did not keep what this command wrote; rivulet found nothing to undo.")
    if unseen:
        text += ("\nThe command left more names in the workspace than rivulet checks for protected paths, so "
                 "what it wrote in the folders rivulet could not list was neither checked nor undone. Until "
                 "the workspace is smaller, every command asks first.")
    text += "\nDo not make these changes again in another way; ask the user if they are needed."
    if bus is not None:
        bus.publish(Notice("Undid what a command wrote to protected paths: " + "; ".join(lines) if lines else
                           "A command left more names in the workspace than rivulet checks; nothing it could "
                           "see needed undoing"))
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
