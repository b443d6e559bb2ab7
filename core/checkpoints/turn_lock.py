"""One rivulet at a time changes a workspace: the turn lock.

Two rivulets ran tools in one workspace at once (a chat and an `exec`), and each turn's
checkpoint took the other's files for its own: undoing the chat's turn deleted what the
exec had made (issue 36). A turn now holds this lock from its first tool that may change
files until its checkpoint is written, and a restore (/undo, `rivulet undo`) holds it while
it puts files back; a second rivulet that is about to do either waits, and says so once.

The lock is advisory (`flock`) on `turn.lock` in the workspace's checkpoint folder
(place.py: rivulet's data directory, keyed by the workspace's real path; never inside the
workspace), 0600 in a 0700 folder. The holder writes its pid, session and what it does into
the file, so the one waiting can say who it waits for. A holder that dies (even by
SIGKILL) lets go with its last descriptor: the kernel releases it, nothing is stale.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from rivulet.core.checkpoints.place import store_dir
from rivulet.core.sanitize import one_row

RUNNING = "running a tool"
RESTORING = "putting files back (an undo or redo)"
POLL = 0.1  # s between tries while another rivulet holds the workspace: it may take minutes


class Holder(NamedTuple):
    """Who holds a workspace's lock, as it wrote it (0: not said, or being written)."""

    pid: int
    session: str
    doing: str

    def describe(self) -> str:
        """One row, sanitised (the file is ours, the session id a name like any other)."""
        who = f"pid {self.pid}" if self.pid else "pid unknown"
        if self.session:
            who += f", session {self.session}"
        return one_row(f"another rivulet ({who}) is {self.doing or RUNNING} in this workspace")


class TurnLock:
    def __init__(self, workspace: Path, session: str | Callable[[], str | None], root: Path | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        self.path = store_dir(workspace, root) / "turn.lock"
        self._session = session
        self.notice = notice or (lambda text: None)  # the one line said when this run must wait
        self._fd: int | None = None
        self._waiters = 0  # `hold` calls waiting for another rivulet now

    @property
    def held(self) -> bool:
        return self._fd is not None

    def _open(self) -> int:
        from rivulet.core.store.session import private_dir

        private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:  # made by an older run, or another umask
                os.fchmod(fd, 0o600)
        except OSError:
            os.close(fd)
            raise
        return fd

    def try_hold(self, doing: str = RUNNING) -> Holder | None:
        """Take the lock if it is free: None. Else who holds it (this object holds it: None)."""
        if self._fd is not None:
            return None
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            return holder
        except BaseException:
            os.close(fd)
            raise
        self._took(fd, doing)
        return None

    async def hold(self, doing: str = RUNNING) -> None:
        """Take the lock, waiting for another rivulet's turn or restore to end (said once,
        through `notice`). Cancelling the wait (Esc, Ctrl-C) leaves it untaken. A lock that
        cannot be made (rivulet's data folder unwritable) is said, and the run goes on
        without it: the tool must not fail for an advisory lock."""
        try:
            busy = self.try_hold(doing)
            if busy is None:
                return
            if not self._waiters:  # subagents' tools wait at once, on their parent's lock: said once
                self.notice(_waiting(busy))
            self._waiters += 1
            try:
                while self.try_hold(doing) is not None:
                    await asyncio.sleep(POLL)
            finally:
                self._waiters -= 1
        except OSError as exc:
            self.notice(one_row(f"The workspace's lock cannot be taken ({exc.strerror or exc}): this run does not "
                                "wait for another rivulet in it"))

    def hold_blocking(self, doing: str = RUNNING, say: Callable[[str], None] | None = None) -> None:
        """`hold` for a thread or a command without an event loop (`rivulet undo`)."""
        busy = self.try_hold(doing)
        if busy is None:
            return
        (say or self.notice)(_waiting(busy))
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # Ctrl-C interrupts it
        except BaseException:
            os.close(fd)
            raise
        self._took(fd, doing)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # nobody holds it: nothing to say about a holder
        os.close(fd)  # the lock goes with the descriptor

    def _took(self, fd: int, doing: str) -> None:
        self._fd = fd
        session = self._session() if callable(self._session) else self._session
        record = json.dumps({"pid": os.getpid(), "session": session or "", "doing": doing}).encode()
        with contextlib.suppress(OSError):  # (a full disk: the lock holds all the same, unnamed)
            os.ftruncate(fd, 0)
            os.pwrite(fd, record, 0)


def _read(fd: int) -> Holder:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        pid, session, doing = data.get("pid"), data.get("session"), data.get("doing")
        return Holder(pid if isinstance(pid, int) else 0, session if isinstance(session, str) else "",
                      doing if isinstance(doing, str) else "")
    except (OSError, ValueError, AttributeError):
        return Holder(0, "", "")


def _waiting(busy: Holder) -> str:
    return f"Waiting: {busy.describe()}; this run goes on when it is done"
