"""A session file that is created with its first record, not when the app starts:
starting rivulet and quitting leaves nothing behind, so `rivulet sessions` and
`resume --last` only ever see conversations that have a message."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rivulet.core.store.session import SessionWriter

if TYPE_CHECKING:
    from rivulet.core.turn.recorder import SessionFile


class LazySessionWriter:
    """Stands in for a new session's `SessionWriter` until there is something to write."""

    def __init__(self, *, model: str, base_url: str, cwd: str | None = None, directory: Path | None = None,
                 frontend: str = "chat", session_id: str | None = None, **durability: Any) -> None:
        self._model, self._base_url, self._cwd, self._directory = model, base_url, cwd, directory
        self._id = session_id  # the id the file will have, when it was given before it exists (an editor's)
        self._frontend, self._durability = frontend, durability
        self._writer: SessionWriter | None = None
        self._closed = False
        self._failed: str | None = None

    def _open(self) -> SessionWriter | None:
        if self._writer is None and not self._closed:
            try:
                self._writer, _ = SessionWriter.create(model=self._model, base_url=self._base_url, cwd=self._cwd,
                                                       directory=self._directory, frontend=self._frontend,
                                                       session_id=self._id, **self._durability)
            except OSError as exc:  # the conversation goes on unsaved; the UI says so once
                self._closed = True
                self._failed = f"the session file could not be created ({exc.strerror or exc}); " \
                               "this conversation is not being saved"
        return self._writer

    @property
    def started(self) -> bool:
        return self._writer is not None

    @property
    def path(self) -> Path | None:
        return self._writer.path if self._writer is not None and not self._writer.removed else None

    @property
    def session_id(self) -> str | None:
        return self._writer.session_id if self._writer is not None else self._id

    @property
    def failed(self) -> str | None:
        return self._writer.failed if self._writer is not None else self._failed

    def observe(self, change: str, data: Any) -> None:
        if (writer := self._open()) is not None:
            writer.observe(change, data)

    def subagent_item(self, call_id: str, subagent: str, name: str, item: dict[str, Any], at: float) -> None:
        if (writer := self._open()) is not None:
            writer.subagent_item(call_id, subagent, name, item, at)

    def subagent_ended(self, call_id: str, subagent: str, name: str, status: str, error: str | None) -> None:
        if (writer := self._open()) is not None:
            writer.subagent_ended(call_id, subagent, name, status, error)

    def turn_started(self, turn_id: int, prompt: str) -> None:
        if (writer := self._open()) is not None:
            writer.turn_started(turn_id, prompt)

    def turn_ended(self, turn_id: int, usage: dict[str, Any] | None, outcome: str) -> None:
        if (writer := self._open()) is not None:
            writer.turn_ended(turn_id, usage, outcome)

    def restored(self, record: dict[str, Any]) -> None:
        if (writer := self._open()) is not None:
            writer.restored(record)

    def background_left(self, turn_id: int, response_id: str, sequence: int | None, segment: str) -> None:
        if (writer := self._open()) is not None:
            writer.background_left(turn_id, response_id, sequence, segment)

    def reattached(self, response_id: str) -> None:
        if (writer := self._open()) is not None:
            writer.reattached(response_id)

    def sync(self) -> None:
        if self._writer is not None:
            self._writer.sync()

    def close(self) -> None:
        self._closed = True
        if self._writer is not None:
            self._writer.close()

    def closing_note(self) -> str | None:
        """After close: what was not saved, or None."""
        if self._writer is not None:
            return self._writer.closing_note()
        return self._failed


if TYPE_CHECKING:  # mypy checks that each writer is a whole SessionFile: no method of it is optional
    def _both_writers_are_session_files(lazy: LazySessionWriter, eager: SessionWriter) -> tuple[SessionFile, ...]:
        return lazy, eager
