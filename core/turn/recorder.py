"""What the turn loop and the engine need from a session writer: one typed protocol that
every writer implements in full (core/store/session.py's `SessionWriter`, the lazy one of
core/store/lazy_session.py). No method of it is optional: a writer that lacked one was
skipped by a `getattr` once, and a quit new chat lost its background response (issue 36).
A test checks that every writer class satisfies it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class SessionRecorder(Protocol):
    """Where the turn loop records what happens (the session file): every history
    change, as it happens, and each turn's start and end."""

    @property
    def session_id(self) -> str | None:
        """The session's id once its file exists (the prompt cache key, checkpoints), else None."""

    def observe(self, change: str, data: Any) -> None: ...

    def turn_started(self, turn_id: int, prompt: str) -> None: ...

    def turn_ended(self, turn_id: int, usage: dict[str, Any] | None, outcome: str) -> None: ...

    def subagent_item(self, call_id: str, subagent: str, name: str, item: dict[str, Any], at: float) -> None:
        """An item a subagent committed (core/subagents), under the parent's call `call_id`."""

    def subagent_ended(self, call_id: str, subagent: str, name: str, status: str, error: str | None) -> None:
        """How the subagent of the parent's call `call_id` ended: completed, failed (`error`
        says why) or cancelled."""

    def sync(self) -> None:
        """Make what was recorded durable now (writes are fsynced in groups)."""

    def background_left(self, turn_id: int, response_id: str, sequence: int | None, segment: str) -> None:
        """A background response left running at quit: `rivulet resume` fetches it."""

    def reattached(self, response_id: str) -> None:
        """The left background response was fetched and committed: resume asks no more."""

    def restored(self, record: dict[str, Any]) -> None:
        """A restore of the workspace's files (/undo, /redo, a rewind with files)."""


class SessionFile(SessionRecorder, Protocol):
    """The session writer as the engine holds it: a recorder with a file, closed when let go."""

    @property
    def path(self) -> Path | None: ...

    def close(self) -> None: ...
