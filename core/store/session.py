"""Session files: one append-only JSONL file per conversation, safe against `kill -9`.

The first line describes the session (id, time, cwd, model, base URL without
credentials). Every later line is one change to the committed history, written, flushed
and fsynced the moment it happens (the history tells the writer before the UI hears of
it): an item, a truncation (a turn taken back), a reorder (Completed's output order), a
compaction (older items replaced), a model switch, a turn boundary with its usage. A
process killed at any moment leaves a file whose complete lines are a valid prefix; a
torn last line is ignored with a warning. Nothing secret is written: no key, no headers,
the URL without userinfo or query."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rivulet.core.config_sources import sessions_dir
from rivulet.core.errors import RivuletError
from rivulet.core.turn.attachments import prompt_text
from rivulet.core.turn.history import History, HistoryEntry

log = logging.getLogger(__name__)

FORMAT = 1


class SessionError(RivuletError):
    kind = "session_error"


class SessionLocked(SessionError):
    """Another rivulet process has this session open (it holds the file's lock)."""

    kind = "session_locked"


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700 whatever the umask; tighten it if it
    exists and is ours. Session files hold whole conversations."""
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
    for d in [*missing, path]:
        try:
            if d.stat().st_uid == os.getuid():
                os.chmod(d, 0o700)
        except OSError:
            pass
    return path


@dataclass
class SessionMeta:
    id: str
    created: float
    cwd: str
    model: str
    base_url: str
    path: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": "session", "format": FORMAT, "id": self.id, "created": self.created, "cwd": self.cwd,
                "model": self.model, "base_url": self.base_url}


@dataclass
class Turn:
    turn_id: int
    prompt: str
    started: float
    usage: dict[str, Any] | None = None
    ended: float | None = None


@dataclass
class Session:
    meta: SessionMeta
    history: History
    turns: list[Turn] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def first_prompt(self) -> str:
        """The user's first prompt: without attachments, from before any compaction."""
        oldest = [e.item for c in self.history.compactions[:1] for e in c.replaced]
        for item in [*oldest, *self.history]:
            if item.get("type") == "message" and item.get("role") == "user":
                text = prompt_text(item)
                if not text.startswith(("<turn_aborted>", "<conversation_summary>")):
                    return text
        return ""


class SessionWriter:
    """Appends a session's changes to its file, each durable before it returns."""

    def __init__(self, path: Path, meta: SessionMeta | None = None) -> None:
        self.path = path
        # Set when a write failed (disk full, file gone): the conversation goes on without
        # its file rather than fail; the UI says so once.
        self.failed: str | None = None
        private_dir(path.parent)
        if path.parent == sessions_dir() and os.environ.get("RIVULET_SESSIONS_DIR") is None:
            private_dir(path.parent.parent)  # rivulet's data directory
        new = not path.exists() or path.stat().st_size == 0
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:  # one writer per file: two processes appending would interleave their records
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            self._fd = -1
            raise SessionLocked(f"session {path.stem} is open in another rivulet process") from None
        if not new:
            self._heal()
        if new:
            if meta is None:
                raise SessionError(f"{path}: a new session file needs its metadata")
            self._write(meta.to_json())

    @classmethod
    def create(cls, *, model: str, base_url: str, cwd: str | None = None,
               directory: Path | None = None) -> tuple[SessionWriter, SessionMeta]:
        now = time.time()
        sid = time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + "-" + secrets.token_hex(3)
        meta = SessionMeta(sid, now, cwd or os.getcwd(), model, base_url)
        meta.path = (directory or sessions_dir()) / f"{sid}.jsonl"
        return cls(meta.path, meta), meta

    def _heal(self) -> None:
        """A file cut mid-line (a crash) gets a newline, so the next record starts clean."""
        with open(self.path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                os.write(self._fd, b"\n")

    def _write(self, record: dict[str, Any]) -> None:
        if self.failed is not None or self._fd < 0:
            return
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            os.write(self._fd, line.encode("utf-8"))
            os.fsync(self._fd)
        except OSError as exc:
            self.failed = f"the session file {self.path} could not be written ({exc.strerror or exc}); " \
                          "this conversation is no longer being saved"
            log.warning("%s", self.failed)

    def append_records(self, data: bytes) -> None:
        """Whole JSONL records copied from another session file (a fork)."""
        if data and self._fd >= 0 and self.failed is None:
            try:
                os.write(self._fd, data)
                os.fsync(self._fd)
            except OSError as exc:
                self.failed = f"the session file {self.path} could not be written ({exc.strerror or exc})"

    def observe(self, change: str, data: Any) -> None:
        """A `History` observer."""
        if change == "append":
            entry: HistoryEntry = data
            self._write({"type": "item", "seq": entry.seq, "key": entry.key, "segment": entry.segment,
                         "time": round(entry.time, 3), "item": entry.item})
        elif change == "truncate":
            self._write({"type": "truncate", "length": data, "time": round(time.time(), 3)})
        elif change == "reorder":
            self._write({"type": "reorder", "order": data})
        elif change == "rewind":  # a truncation older readers apply as such; the cut items stay above it
            self._write({"type": "truncate", "length": data.at, "reason": "edit", "dropped": len(data.entries),
                         "time": round(data.time, 3)})
        elif change == "compact":
            done = data  # a history.Compaction
            self._write({"type": "compact", "number": done.number, "mode": done.mode, "replaced": len(done.replaced),
                         "items": [e.item for e in done.added], "summary": done.summary,
                         "time": round(done.time, 3)})
        elif change == "model":
            self._write({"type": "model", "length": data[0], "model": data[1], "time": round(time.time(), 3)})

    def turn_started(self, turn_id: int, prompt: str) -> None:
        self._write({"type": "turn", "turn_id": turn_id, "event": "started", "prompt": prompt,
                     "time": round(time.time(), 3)})

    def turn_ended(self, turn_id: int, usage: dict[str, Any] | None, outcome: str) -> None:
        self._write({"type": "turn", "turn_id": turn_id, "event": outcome, "usage": usage,
                     "time": round(time.time(), 3)})

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def open_for_resume(path: Path, session: Session) -> tuple[SessionWriter, Session]:
    """A writer for resuming `session`. If another rivulet process has it open, the
    conversation is forked: a new session file starts with a copy of every complete
    record, the original is left to its owner, and a warning says so."""
    try:
        return SessionWriter(path), session
    except SessionLocked:
        pass
    meta = session.meta
    writer, new_meta = SessionWriter.create(model=meta.model, base_url=meta.base_url, cwd=meta.cwd,
                                            directory=path.parent)
    data = path.read_bytes()
    body = data[data.find(b"\n") + 1:] if b"\n" in data else b""
    writer.append_records(body[: body.rfind(b"\n") + 1])  # complete records only: the owner may be mid-write
    new_meta.path = writer.path
    session.meta = new_meta
    session.warnings.append(f"Session {meta.id} is open in another rivulet process: this is a copy of it, "
                            f"saved as the new session {new_meta.id} (the original is left untouched).")
    return writer, session


def _records(path: Path, warnings: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    data = path.read_bytes()
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""  # after the last newline: empty, or a torn write
    if torn.strip():
        warnings.append(f"{path.name}: ignored an incomplete last line ({len(torn)} bytes; the process was "
                        f"probably killed while writing it)")
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            warnings.append(f"{path.name}:{n}: ignored a line that is not JSON")
            continue
        if isinstance(record, dict):
            yield n, record


def load_session(path: Path) -> Session:
    """Rebuild a session's history (and turns) from its file."""
    if not path.is_file():
        raise SessionError(f"no session file {path}")
    warnings: list[str] = []
    records = _records(path, warnings)
    first = next(records, None)
    if first is None or first[1].get("type") != "session":
        raise SessionError(f"{path} is not a rivulet session file")
    head = first[1]
    meta = SessionMeta(str(head.get("id")), float(head.get("created") or 0), str(head.get("cwd") or ""),
                       str(head.get("model") or ""), str(head.get("base_url") or ""), path)
    history = History()
    if meta.model:
        history.set_model(meta.model, record=False)
    turns: dict[int, Turn] = {}
    for n, record in records:
        kind = record.get("type")
        if kind == "item" and isinstance(record.get("item"), dict):
            history.append(record["item"], record.get("segment"), record.get("key"), at=record.get("time"))
        elif kind == "truncate" and isinstance(record.get("length"), int):
            if record.get("reason") == "edit" and _count(record["length"]):
                when = record.get("time")
                history.rewind(record["length"], at=when if isinstance(when, (int, float)) else 0.0)
            else:
                history.truncate(record["length"])
        elif kind == "reorder" and isinstance(record.get("order"), list):
            by_seq = {e.seq: e for e in history.entries}
            order = [by_seq[s] for s in record["order"] if s in by_seq]
            if len(order) == len(history.entries):
                history.entries[:] = order
        elif (kind == "compact" and _count(record.get("replaced")) and isinstance(record.get("items"), list)
              and all(isinstance(i, dict) for i in record["items"])):
            history.compact(record["replaced"], record["items"], mode=str(record.get("mode") or "summary"),
                            summary=record.get("summary") if isinstance(record.get("summary"), str) else None,
                            at=record.get("time") if isinstance(record.get("time"), (int, float)) else None)
        elif kind == "model" and isinstance(record.get("model"), str):
            history.set_model(record["model"], record=False)  # a switch: items from here on are its
        elif kind == "turn" and isinstance(record.get("turn_id"), int):
            tid = record["turn_id"]
            if record.get("event") == "started":
                turns[tid] = Turn(tid, str(record.get("prompt") or ""), float(record.get("time") or 0))
            elif tid in turns:
                turns[tid].usage = record.get("usage")
                turns[tid].ended = record.get("time")
        else:
            warnings.append(f"{path.name}:{n}: ignored a record of unknown type {kind!r}")
    for warning in warnings:
        log.warning("%s", warning)
    return Session(meta, history, sorted(turns.values(), key=lambda t: t.turn_id), warnings)


def _count(value: Any) -> bool:
    """A length or count a record may carry (a hostile file's negative one would cut
    from the end)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def list_sessions(directory: Path | None = None) -> list[Session]:
    """Every readable session, newest first."""
    found = []
    for path in sorted((directory or sessions_dir()).glob("*.jsonl")):
        try:
            found.append(load_session(path))
        except (SessionError, OSError) as exc:
            log.warning("skipping %s: %s", path, exc)
    return sorted(found, key=lambda s: s.meta.created, reverse=True)


def find_session(ref: str, directory: Path | None = None) -> Path:
    """A session file by id (or unique id prefix), or a path."""
    as_path = Path(ref).expanduser()
    if as_path.suffix == ".jsonl" and as_path.is_file():
        return as_path
    folder = directory or sessions_dir()
    matches = sorted(folder.glob(f"{ref}*.jsonl"))
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise SessionError(f"no session {ref!r} in {folder} (rivulet sessions lists them)")
    raise SessionError(f"{ref!r} matches {len(matches)} sessions; give more of the id")
