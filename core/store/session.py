"""Session files: one append-only JSONL file per conversation, safe against `kill -9`.

The first line describes the session (id, time, cwd, model, base URL without
credentials, format, the front end that made it). Every later line is one change to the
committed history, written the moment it happens (the history tells the writer before
the UI hears of it) and fsynced by group commit: an item, a truncation (a turn taken
back), a reorder (Completed's output order), a compaction (older items replaced), a
model switch, a turn boundary with its usage; and two notes about the file itself: a
torn tail cut off on reopening (`repair`), items the disk refused to the end (`unsaved`).
A process killed at any moment leaves a file whose complete lines are a valid prefix; a
torn last line is ignored with a warning, and cut off by the next writer. A file of a
newer format is never appended to. Nothing secret is written: no key, no headers, the
URL without userinfo or query."""

from __future__ import annotations

import fcntl
import gc
import json
import logging
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from rivulet.core.command_name import command_name
from rivulet.core.config_sources import sessions_dir
from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import sanitize
from rivulet.core.store.append_log import AppendLog
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


class SessionMeta(msgspec.Struct, dict=True):
    id: str
    created: float
    cwd: str
    model: str
    base_url: str
    path: Path | None = None
    format: int = FORMAT  # as read from the file: a higher one is never appended to
    frontend: str = ""  # what made it: "chat" or "exec" ("" in files from before this was kept)

    def to_json(self) -> dict[str, Any]:
        head = {"type": "session", "format": FORMAT, "id": self.id, "created": self.created, "cwd": self.cwd,
                "model": self.model, "base_url": self.base_url}
        if self.frontend:
            head["frontend"] = self.frontend
        return head


class Turn(msgspec.Struct, dict=True):
    turn_id: int
    prompt: str
    started: float
    usage: dict[str, Any] | None = None
    ended: float | None = None


class Session(msgspec.Struct, dict=True):
    meta: SessionMeta
    history: History
    turns: list[Turn] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    # A background response the last run left running at quit (core/turn/background_turns.py).
    background: dict[str, Any] | None = None
    # What subagents (issue 41) committed, by the parent's call that spawned each: its items in
    # order; and each call's subagent, as (id, name).
    subagent_items: dict[str, list[dict[str, Any]]] = msgspec.field(default_factory=dict)
    subagents: dict[str, tuple[str, str]] = msgspec.field(default_factory=dict)
    # How each ended, by the call: (status, error): "completed", "failed" (error: why), "cancelled".
    subagent_ends: dict[str, tuple[str, str | None]] = msgspec.field(default_factory=dict)

    @property
    def model(self) -> str:
        """The model a resume goes on with: the session's last switch, else its first
        line's ("" when neither says; `rivulet sessions` shows this one, issue 42.7)."""
        return self.history.models[-1][1] if self.history.models else self.meta.model

    @property
    def last_active(self) -> float:
        """When the session was last used: its newest record's time (an item, a turn's
        start or end), else its creation. `resume --last` wants this, not `created`: an
        older session resumed today is the one the user was in last (issue 38.5)."""
        times = [self.meta.created, *(e.time for e in self.history.entries)]
        times += [t.ended or t.started for t in self.turns]
        return max(times)

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


class SessionNewer(SessionError):
    """The file was written by a newer rivulet (a higher `format`): never appended to."""

    kind = "session_newer"


class SessionWriter:
    """Appends a session's changes to its file by group commit (core/store/append_log.py):
    each record is written as it happens (a killed process loses nothing), fsynced at most
    every ~100 ms, at each turn's end and before a tool runs (`sync`). A record the disk
    refused waits in memory and is written once it can be; what never could is noted in
    the file on close ("N items were not saved")."""

    def __init__(self, path: Path, meta: SessionMeta | None = None, **durability: Any) -> None:
        self.path = path
        self._log: AppendLog | None = None
        self.removed = False  # closed with nothing written: the empty file was taken away
        self.unsaved_items = self.unsaved_records = 0  # what close() could not write
        self._last_error = ""
        private_dir(path.parent)
        if path.parent == sessions_dir() and os.environ.get("RIVULET_SESSIONS_DIR") is None:
            private_dir(path.parent.parent)  # rivulet's data directory
        new = not path.exists() or path.stat().st_size == 0
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:  # one writer per file: two processes appending would interleave their records
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise SessionLocked(f"session {path.stem} is open in another rivulet process") from None
        try:
            if not new:
                _refuse_newer(path)
            repaired = 0 if new else _cut_torn_tail(fd, path)
        except BaseException:
            os.close(fd)
            raise
        self._log = AppendLog(fd, **durability)
        if new:
            if meta is None:
                self.close()
                raise SessionError(f"{path}: a new session file needs its metadata")
            self._write(meta.to_json())
        elif repaired:  # recorded, so the next load has nothing to warn about
            self._write({"type": "repair", "dropped_bytes": repaired, "time": round(time.time(), 3)})

    @classmethod
    def create(cls, *, model: str, base_url: str, cwd: str | None = None, directory: Path | None = None,
               frontend: str = "", session_id: str | None = None,
               **durability: Any) -> tuple[SessionWriter, SessionMeta]:
        """A new session file (`session_id`: one `new_session_id` gave earlier, else a new one)."""
        now = time.time()
        sid = session_id or new_session_id(now)
        meta = SessionMeta(sid, now, cwd or os.getcwd(), model, base_url, frontend=frontend)
        meta.path = (directory or sessions_dir()) / f"{sid}.jsonl"
        return cls(meta.path, meta, **durability), meta

    @property
    def session_id(self) -> str | None:
        return self.path.stem

    @property
    def _fd(self) -> int:
        return self._log.fd if self._log is not None else -1

    @property
    def failed(self) -> str | None:
        """Why the file is not up to date, while it is not (None once saving has caught up)."""
        log = self._log
        if log is None or log.error is None:
            return None
        waiting = f"{log.pending_items} items wait" if log.pending_items else "what follows waits"
        return (f"the session file could not be written ({_why(log.error)}): {waiting} in memory and will be "
                f"saved when it can be written again ({self.path})")  # the path last: a toast may cut it

    def _write(self, record: dict[str, Any]) -> None:
        if self._log is None:
            return
        self._log.append(_ENCODE(record) + b"\n", items=1 if record["type"] == "item" else 0)
        if self._log.error is not None:
            self._last_error = _why(self._log.error)
            log.info("%s", self.failed)  # said once by the front end, not here on every record

    def append_records(self, data: bytes) -> None:
        """Whole JSONL records copied from another session file (a fork)."""
        if data and self._log is not None:
            self._log.append(data, records=data.count(b"\n"), items=data.count(b'{"type":"item"'))
            self._log.sync()

    def sync(self) -> None:
        """Make everything written so far durable now (a tool is about to run)."""
        if self._log is not None:
            self._log.sync()
            if self._log.error is not None:
                self._last_error = _why(self._log.error)

    def observe(self, change: str, data: Any) -> None:
        """A `History` observer."""
        if change == "append":
            entry: HistoryEntry = data
            self._write({"type": "item", "seq": entry.seq, "key": entry.key, "segment": entry.segment,
                         "time": round(entry.time, 3), "item": entry.item})
            if entry.item.get("type") == "image_generation_call":
                self._save_image(entry.item)
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

    def _save_image(self, item: dict[str, Any]) -> None:
        """A generated image, also as a file beside the session (issue 27)."""
        from rivulet.core.store.images import images_dir, save_image

        result = item.get("result")
        if not isinstance(result, str):
            return
        try:
            fmt = item.get("output_format")
            save_image(images_dir(self.path), str(item.get("id") or "image"), "final", result,
                       fmt if isinstance(fmt, str) else None)
        except OSError as exc:
            log.warning("could not save a generated image beside %s: %s", self.path, _why(exc))

    def subagent_item(self, call_id: str, subagent: str, name: str, item: dict[str, Any], at: float) -> None:
        """An item a subagent committed, under the parent's call (older rivulets skip the record)."""
        self._write({"type": "subagent_item", "call_id": call_id, "subagent": subagent, "name": name, "item": item,
                     "time": round(at, 3)})

    def subagent_ended(self, call_id: str, subagent: str, name: str, status: str, error: str | None) -> None:
        """How a subagent ended (a failed one may have committed no item at all)."""
        self._write({"type": "subagent_ended", "call_id": call_id, "subagent": subagent, "name": name,
                     "status": status, "error": error, "time": round(time.time(), 3)})

    def turn_started(self, turn_id: int, prompt: str) -> None:
        self._write({"type": "turn", "turn_id": turn_id, "event": "started", "prompt": prompt,
                     "time": round(time.time(), 3)})

    def turn_ended(self, turn_id: int, usage: dict[str, Any] | None, outcome: str) -> None:
        self._write({"type": "turn", "turn_id": turn_id, "event": outcome, "usage": usage,
                     "time": round(time.time(), 3)})
        self.sync()

    def restored(self, record: dict[str, Any]) -> None:
        """A restore of the workspace's files (/undo, /redo, a rewind with files)."""
        self._write(record)
        self.sync()

    def background_left(self, turn_id: int, response_id: str, sequence: int | None, segment: str) -> None:
        """A background response left running at quit: `rivulet resume` fetches it."""
        self._write({"type": "background", "turn_id": turn_id, "response_id": response_id, "sequence": sequence,
                     "segment": segment, "time": round(time.time(), 3)})
        self.sync()

    def reattached(self, response_id: str) -> None:
        """The left background response was fetched and committed: resume asks no more."""
        self._write({"type": "reattached", "response_id": response_id, "time": round(time.time(), 3)})

    def close(self) -> None:
        """Write what waits if the disk now takes it; else note in the file how much is
        missing. A file that never got its first line is removed: no empty sessions."""
        log_, self._log = self._log, None
        if log_ is None:
            return
        log_.sync()
        if log_.pending_records and log_.size:
            self.unsaved_items, self.unsaved_records = log_.pending_items, log_.pending_records
            reason = _why(log_.error) if log_.error is not None else self._last_error
            note = {"type": "unsaved", "items": log_.pending_items, "records": log_.pending_records,
                    "reason": reason, "time": round(time.time(), 3)}
            log_.try_write((json.dumps(note, separators=(",", ":")) + "\n").encode())
        elif log_.pending_records:
            self.unsaved_items, self.unsaved_records = log_.pending_items, log_.pending_records
        if log_.error is not None:
            self._last_error = _why(log_.error)
        empty = log_.size == 0
        log_.close()
        if empty:
            try:
                if self.path.stat().st_size == 0:
                    self.path.unlink()
                    self.removed = True
            except OSError:
                pass

    def closing_note(self) -> str | None:
        """After close: what a user must know about this file, or None when all was saved."""
        if not self.unsaved_records:
            return None
        why = self._last_error or "a write failed"
        if self.removed:
            return f"this conversation was not saved: its session file could not be written ({why})"
        return (f"{self.unsaved_items} items of this conversation were not saved ({why}): the session "
                f"{self.path.stem} holds what came before them")


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _refuse_newer(path: Path) -> None:
    with open(path, "rb") as f:
        first = f.readline(1 << 20)
    try:
        head = json.loads(first)
    except ValueError:
        return
    fmt = head.get("format") if isinstance(head, dict) else None
    if isinstance(fmt, int) and fmt > FORMAT:
        raise SessionNewer(f"session {path.stem} was written by a newer rivulet (format {fmt}; this one "
                           f"writes format {FORMAT})")


def _cut_torn_tail(fd: int, path: Path) -> int:
    """A file cut mid-line (a crash) loses the cut line, so the next record starts clean
    and loading has nothing left to warn about. Returns how many bytes went."""
    with open(path, "rb") as f:
        end = f.seek(0, os.SEEK_END)
        pos = end
        while pos > 0:  # back to the last newline, a block at a time (a record can be large)
            start = max(0, pos - 65536)
            f.seek(start)
            block = f.read(pos - start)
            nl = block.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            pos = start
        else:
            keep = 0
    if keep == end:
        return 0
    os.ftruncate(fd, keep)
    return end - keep


def open_for_resume(path: Path, session: Session) -> tuple[SessionWriter, Session]:
    """A writer for resuming `session`. If another rivulet process has it open, the
    conversation is forked: a new session file starts with a copy of every complete
    record, the original is left to its owner, and a warning says so. A file from a
    newer rivulet is forked too (never appended to: its records may mean what this
    version cannot know), as the history this version read from it."""
    try:
        if session.meta.format <= FORMAT:
            return SessionWriter(path), session
    except SessionLocked:
        pass
    except SessionNewer:
        session.meta.format = FORMAT + 1  # the file changed since it was loaded: treat it as newer
    meta = session.meta
    writer, new_meta = SessionWriter.create(model=meta.model, base_url=meta.base_url, cwd=meta.cwd,
                                            directory=path.parent, frontend=meta.frontend)
    new_meta.path = writer.path
    if meta.format > FORMAT:
        _write_history(writer, session)
        session.meta = new_meta
        session.warnings.append(f"Session {meta.id} was written by a newer rivulet (format {meta.format}; this one "
                                f"writes format {FORMAT}): it is left untouched, and this conversation goes on "
                                f"in the new session {new_meta.id}.")
        return writer, session
    data = path.read_bytes()
    body = data[data.find(b"\n") + 1:] if b"\n" in data else b""
    writer.append_records(body[: body.rfind(b"\n") + 1])  # complete records only: the owner may be mid-write
    session.meta = new_meta
    session.warnings.append(f"Session {meta.id} is open in another rivulet process: this is a copy of it, "
                            f"saved as the new session {new_meta.id} (the original is left untouched).")
    return writer, session


def _write_history(writer: SessionWriter, session: Session) -> None:
    """The history as read, in this version's records (a fork of a newer file)."""
    history = session.history
    marks = dict(history.models)
    for n, entry in enumerate(history.entries):
        if n in marks and n:
            writer.observe("model", (n, marks[n]))
        writer.observe("append", entry)
    for turn in session.turns:
        writer.turn_started(turn.turn_id, turn.prompt)
        if turn.ended is not None:
            writer.turn_ended(turn.turn_id, turn.usage, "completed")
    writer.sync()


# A record a line: msgspec decodes them ~3x faster than json (a 5,000-turn resume read
# its 11 MB in 3 s under load, most of it json.loads), and encodes them as compact UTF-8
# JSON, byte for byte what json.dumps(ensure_ascii=False, separators=(",", ":")) wrote
# (but a float NaN as null, valid JSON), in a tenth of its time (exec's 10,000 items:
# json.dumps was a tenth of the run).
_decode = msgspec.json.Decoder().decode
_ENCODE = msgspec.json.Encoder().encode


def _records(path: Path, warnings: list[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    data = path.read_bytes()
    lines = data.split(b"\n")
    torn = lines.pop() if lines else b""  # after the last newline: empty, or a torn write
    if torn.strip():
        warnings.append(f"{path.name}: ignored an incomplete last line ({len(torn)} bytes: its write was cut "
                        f"short); it is cut off when the session is resumed")
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            record = _decode(raw)
        except ValueError:
            try:
                record = json.loads(raw)  # what msgspec refuses and json wrote (NaN, Infinity)
            except ValueError:
                warnings.append(f"{path.name}:{n}: ignored a line that is not JSON")
                continue
        if isinstance(record, dict):
            yield n, record


@contextmanager
def _collector_paused() -> Iterator[None]:
    """A session's records become plain dicts and lists that live as long as the chat; the
    collector, set off every few hundred of them, walked all those already read again and
    again (~40 % of loading 20,000 turns). Paused while they are read (and left off if it
    was off)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def new_session_id(now: float | None = None) -> str:
    """A session's id (its file's name): when it started, and six random hex digits."""
    now = time.time() if now is None else now
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + "-" + secrets.token_hex(3)


@_collector_paused()
def load_session(path: Path) -> Session:
    """Rebuild a session's history (and turns) from its file."""
    if not path.is_file():
        raise SessionError(f"no session file {path}")
    if path.stat().st_size == 0:
        raise SessionError(f"{path} is empty: nothing was saved in it")
    warnings: list[str] = []
    records = _records(path, warnings)
    first = next(records, None)
    if first is None or first[1].get("type") != "session":
        raise SessionError(f"{path} is not a rivulet session file")
    head = first[1]
    meta = SessionMeta(str(head.get("id")), float(head.get("created") or 0), str(head.get("cwd") or ""),
                       str(head.get("model") or ""), str(head.get("base_url") or ""), path,
                       format=head["format"] if _count(head.get("format")) else FORMAT,
                       frontend=str(head.get("frontend") or ""))
    unknown = 0
    history = History()
    if meta.model:
        history.set_model(meta.model, record=False)
    turns: dict[int, Turn] = {}
    background: dict[str, Any] | None = None  # a background response left running, not yet fetched
    sub_items: dict[str, list[dict[str, Any]]] = {}
    subagents: dict[str, tuple[str, str]] = {}
    sub_ends: dict[str, tuple[str, str | None]] = {}
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
        elif kind == "restore":
            pass  # files put back by /undo, /redo or a rewind (core/checkpoints): a record, no history change
        elif kind == "background" and isinstance(record.get("response_id"), str):
            background = {k: record.get(k) for k in ("turn_id", "response_id", "sequence", "segment")}
        elif kind == "reattached":
            background = None  # its response was fetched and committed
        elif (kind == "subagent_item" and isinstance(record.get("call_id"), str)
              and isinstance(record.get("item"), dict)):
            sub_items.setdefault(record["call_id"], []).append(record["item"])
            subagents.setdefault(record["call_id"], (str(record.get("subagent") or ""), str(record.get("name") or "")))
        elif kind == "subagent_ended" and isinstance(record.get("call_id"), str):
            sub_items.setdefault(record["call_id"], [])  # (one that failed at once committed nothing)
            subagents.setdefault(record["call_id"], (str(record.get("subagent") or ""), str(record.get("name") or "")))
            error = record.get("error")
            sub_ends[record["call_id"]] = (str(record.get("status") or "ended"),
                                           sanitize(error)[:500] if isinstance(error, str) else None)
        elif kind == "repair":
            pass  # a torn last line that a writer cut off: nothing is missing that was committed
        elif kind == "unsaved" and _count(record.get("items")):
            reason = sanitize(str(record.get("reason") or "a write failed"))[:200]  # the file may be hostile
            warnings.append(f"{path.name}: {record['items']} items were not saved ({reason}); "
                            "this session holds what came before them")
        elif meta.format > FORMAT:
            unknown += 1
        else:
            warnings.append(f"{path.name}:{n}: ignored a record of unknown type {kind!r}")
    if meta.format > FORMAT:
        skipped = f"; {unknown} records it does not know were skipped" if unknown else ""
        warnings.append(f"{path.name}: written by a newer rivulet (format {meta.format}; this one reads format "
                        f"{FORMAT}){skipped}")
    for warning in warnings:
        log.warning("%s", warning)
    return Session(meta, history, sorted(turns.values(), key=lambda t: t.turn_id), warnings, background, sub_items,
                   subagents, sub_ends)


def _count(value: Any) -> bool:
    """A length or count a record may carry (a hostile file's negative one would cut
    from the end)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def list_sessions(directory: Path | None = None) -> list[Session]:
    """Every readable session, newest first."""
    found = []
    for path in sorted((directory or sessions_dir()).glob("*.jsonl")):
        try:
            if path.stat().st_size == 0:
                continue  # nothing was ever saved in it (an older rivulet left it): not worth a warning
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
        raise SessionError(f"no session {ref!r} in {folder} ({command_name()} sessions lists them)")
    raise SessionError(f"{ref!r} matches {len(matches)} sessions; give more of the id")
