"""The seam between a turn and its checkpoint: the tool router calls `before_tool` before
a call that may change files (a patch, a shell command, an MCP server's tool) and the
conversation calls `end_turn` when the turn ends, however it ends.

The walk before runs once per turn, only in turns that run such a tool, in a thread
(it reads the files whose stat changed since the last walk). The walk after finds what
the tools changed, whichever tool changed it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from pathlib import Path

from rivulet.core.checkpoints.store import Checkpoint, CheckpointStore, Limits, Snapshot

log = logging.getLogger(__name__)


class TurnCheckpoints:
    def __init__(self, workspace: Path, session: str | Callable[[], str | None], limits: Limits | None = None,
                 root: Path | None = None, notice: Callable[[str], None] | None = None) -> None:
        self.store = CheckpointStore(workspace, root, limits)
        # The session's id; a callable when the session file is made with its first record.
        self._session = session
        self._run_id = "run-" + secrets.token_hex(4)  # a run that saves no session file
        self.notice = notice or (lambda text: None)
        self._before: Snapshot | None = None
        self._commands: list[str] = []
        self.last: Checkpoint | None = None  # the newest checkpoint this run took
        self.failed: str | None = None

    @property
    def session(self) -> str:
        found = self._session() if callable(self._session) else self._session
        return found or self._run_id

    async def before_tool(self, command: str | None = None) -> None:
        """Called before a tool that may change files runs (`command`: a shell command's
        text, kept for the undo dialog)."""
        if command is not None:
            self._commands.append(command)
        if self._before is None and self.failed is None:
            try:
                self._before = await asyncio.to_thread(self._take)
            except OSError as exc:
                self._fail(exc)

    def _take(self) -> Snapshot:
        with self.store.locked():
            return self.store.snapshot()

    def end_turn(self, turn: int) -> Checkpoint | None:
        """The turn is over: record what it changed (nothing when it ran no such tool)."""
        before, commands = self._before, self._commands
        self._before, self._commands = None, []
        if before is None:
            return None
        if before.walk.too_many:
            self.notice(f"No checkpoint of this turn: the workspace has more than {self.store.limits.max_entries:,} "
                        "files and directories that .gitignore leaves in")
            return None
        try:
            with self.store.locked():
                after = self.store.snapshot()
                cp = self.store.record(self.session, turn, before, after, commands)
        except OSError as exc:
            self._fail(exc)
            return None
        if cp is not None:
            self.last = cp
            if cp.skipped:
                self.notice("Checkpoint: /undo cannot restore " + "; ".join(cp.skipped[:3])
                            + (f"; and {len(cp.skipped) - 3} more" if len(cp.skipped) > 3 else ""))
        return cp

    def _fail(self, exc: OSError) -> None:
        why = f"checkpoints are off for this run: {exc.strerror or exc}"
        if self.failed is None:
            self.notice(why.capitalize())
        self.failed = why
        log.warning("%s", why)
