"""The seam between a turn and its checkpoint: the tool router calls `before_tool` before
a call that may change files (a patch, a shell command, an MCP server's tool) and the
conversation calls `end_turn` when the turn ends, however it ends.

The walk before runs once per turn, only in turns that run such a tool, in a thread
(it reads the files whose stat changed since the last walk). The walk after finds what
the tools changed, whichever tool changed it.

With a turn lock (turn_lock.py), the turn holds the workspace from its walk before until
its checkpoint is written, so another rivulet's turn can neither add its files to this
one's checkpoint nor run between its walks.

A turn whose checkpoint fails (the store's disk is full) says why at once, removes what
its walks stored, and leaves a record of the failure (`rivulet undo` says it); the next
turn tries again.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the store (its walk, hashing, platformdirs) is imported with the first walk
    from rivulet.core.checkpoints.limits import CheckpointLimits
    from rivulet.core.checkpoints.store import Checkpoint, CheckpointStore, WorkspaceSnapshot
    from rivulet.core.checkpoints.turn_lock import TurnLock

log = logging.getLogger(__name__)


class TurnCheckpoints:
    def __init__(self, workspace: Path, session: str | Callable[[], str | None], limits: CheckpointLimits | None = None,
                 root: Path | None = None, notice: Callable[[str], None] | None = None,
                 lock: TurnLock | None = None) -> None:
        self._where = (workspace, root, limits)
        self._store: CheckpointStore | None = None
        # The session's id; a callable when the session file is made with its first record.
        self._session = session
        self._run_id = "run-" + secrets.token_hex(4)  # a run that saves no session file
        self.notice = notice or (lambda text: None)
        self._before: WorkspaceSnapshot | None = None
        self._commands: list[str] = []
        self.last: Checkpoint | None = None  # the newest checkpoint this run took
        self.lock = lock  # the workspace's turn lock: held from the walk before until the checkpoint is written
        self._holding = False  # this turn took it (the last turn's walk after may hold it still: it lets go)
        self.failed: str | None = None  # why this turn has no checkpoint (its walk before failed)
        self._finishing: threading.Thread | None = None  # the last turn's walk after, under way
        self._loop: asyncio.AbstractEventLoop | None = None  # where the walk's notices go
        self._first = asyncio.Lock()  # the turn's walk before, taken once however many tools wait for it

    @property
    def store(self) -> CheckpointStore:
        """The workspace's store, made at the first use (on the event loop's thread: the
        walks' threads find it made)."""
        if self._store is None:
            from rivulet.core.checkpoints.store import CheckpointStore

            self._store = CheckpointStore(*self._where)
        return self._store

    @property
    def session(self) -> str:
        found = self._session() if callable(self._session) else self._session
        return found or self._run_id

    def warm(self) -> None:
        """Start the first walk now, in a thread (the engine calls it when the model starts
        its first call of a tool): the first walk of a workspace reads and keeps every file,
        and the first tool of the first turn would otherwise wait for it. Not once a turn's
        walk is taken or under way."""
        if self._finishing is None and self.failed is None and self._before is None:
            _ = self.store  # made on this thread
            # A daemon: quitting never waits for it (a copy cut short leaves only a temporary file).
            self._finishing = threading.Thread(target=self._warm, name="rivulet-checkpoint-warm", daemon=True)
            self._finishing.start()

    def _warm(self) -> None:
        try:
            self._take()
        except OSError as exc:
            log.info("the first checkpoint walk failed: %s", exc)  # the turn's own walk says it
            self._clean_up()

    async def before_tool(self, command: str | None = None) -> None:
        """Called before a tool that may change files runs (`command`: a shell command's
        text, kept for the undo dialog)."""
        if command is not None:
            self._commands.append(command)
        if self._before is None and self.failed is None:
            async with self._first:  # subagents' tools run at once: one walk before, taken before any of them
                await self._walk_before()

    async def _walk_before(self) -> None:
        if self._before is None and self.failed is None:
            if self._finishing is not None:  # the last turn's walk after comes first (it lets the lock go)
                await asyncio.to_thread(self.wait)
            if self.lock is not None:
                await self.lock.hold()  # another rivulet's turn or restore in this workspace ends first
                self._holding = True
            _ = self.store  # made on this thread
            try:
                self._before = await asyncio.to_thread(self._take)
            except OSError as exc:
                from rivulet.core.checkpoints.store import why_failed

                self.failed = why_failed(exc)
                await asyncio.to_thread(self._clean_up)
                self.notice(f"This turn has no checkpoint: {self.failed}. /undo cannot put back what it changes")
                log.warning("no checkpoint: %s", exc)

    def _take(self) -> WorkspaceSnapshot:
        with self.store.locked():
            return self.store.snapshot()

    def end_turn(self, turn: int) -> None:
        """The turn is over: record what it changed (nothing when it ran no such tool). The
        walk after runs in a thread, so the turn's end is not held up by it; the next
        turn's walk, /undo and the process's exit wait for it (`wait`). The turn lock is let
        go once the checkpoint is written."""
        before, commands, failed, holding = self._before, self._commands, self.failed, self._holding
        self._before, self._commands, self.failed, self._holding = None, [], None, False
        if before is None and failed is None:  # no tool that may change files ran (or its walk was cut short)
            if holding:
                self._let_go()
            return
        if before is not None and before.walk.too_many:
            failed = (f"the workspace has more than {self.store.limits.max_entries:,} files and directories that "
                      ".gitignore leaves in")
            self.notice(f"This turn has no checkpoint: {failed}")
        self.wait()
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self._finishing = threading.Thread(target=self._finish,
                                           args=(before, commands, turn, self.session, failed, holding),
                                           name="rivulet-checkpoint")  # not a daemon: exit waits for it
        self._finishing.start()

    def wait(self) -> Checkpoint | None:
        """Wait for the last turn's checkpoint to be written; it (or None)."""
        if self._finishing is not None:
            self._finishing.join()
            self._finishing = None
        return self.last

    def _finish(self, before: WorkspaceSnapshot | None, commands: list[str], turn: int, session: str,
                failed: str | None, holding: bool) -> None:
        try:
            if before is None or failed is not None:
                self._record_failure(turn, failed or "its walk before failed", commands, session)
            else:
                self._record(before, commands, turn, session)
        finally:
            if holding:
                self._let_go()

    def _record(self, before: WorkspaceSnapshot, commands: list[str], turn: int, session: str) -> None:
        try:
            with self.store.locked():
                after = self.store.snapshot()
                cp = self.store.record(session, turn, before, after, commands)
        except OSError as exc:
            from rivulet.core.checkpoints.store import why_failed

            why = why_failed(exc)
            log.warning("no checkpoint: %s", exc)
            self._clean_up()
            self._say(f"This turn has no checkpoint: {why}. /undo cannot put back what it changed")
            self._record_failure(turn, why, commands, session)
            return
        if cp is not None:
            self.last = cp
            if cp.skipped:
                self._say("Checkpoint: /undo cannot restore " + "; ".join(cp.skipped[:3])
                          + (f"; and {len(cp.skipped) - 3} more" if len(cp.skipped) > 3 else ""))

    def _say(self, text: str) -> None:
        """A notice from the walk's thread: handed to the event loop (the bus is not thread-safe)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.notice, text)
                return
            except RuntimeError:
                pass  # the loop closed meanwhile (exec's end)
        if loop is None:
            self.notice(text)

    def _let_go(self) -> None:
        if self.lock is not None:
            self.lock.release()

    def _clean_up(self) -> None:
        """After a failed walk or record: remove every object nothing names (what the walks
        stored for it), so that a full disk is not left full by a checkpoint that failed."""
        try:
            with self.store.locked():
                self.store.prune()
        except OSError as exc:
            log.warning("the failed checkpoint's objects could not be removed: %s", exc)

    def _record_failure(self, turn: int, why: str, commands: list[str], session: str) -> None:
        """What `rivulet undo` says of this turn (a few hundred bytes: the objects are gone)."""
        try:
            with self.store.locked():
                self.store.record_failure(session, turn, why, commands)
        except OSError as exc:
            log.warning("the failed checkpoint could not be recorded: %s", exc)
