"""Full-text search over every saved session (issue 40): an SQLite FTS5 index beside
the session files, built from them and nothing else (so it holds no secret they do not).

Each committed item is one row: the text its kind says search looks through
(`kind_of(item).search_text`), with the session, the turn, the kind's name and the
time; a tool's call and output are capped (a build log is not worth its weight). The
index is brought up to date incrementally: a session file is read from where the last
update stopped (its offset, kept with its inode), only its new complete lines; a torn
last line waits for the next update; a file replaced under the same name (another
inode, or shorter than what was read) is read again from its start; a session file
gone takes its rows with it. An index that is missing, of another version, or corrupt
is rebuilt from the files. Two processes may update it at once: each file's rows and
offset change in one write transaction, re-read inside it.

The stored text is the files' own, raw but for two control characters (the snippet's
marks, which it cannot then forge); whoever shows a hit sanitises it (`Hit.snippet_parts`)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, suppress
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from rivulet.core.errors import RivuletError
from rivulet.core.kinds import kind_of

INDEX_NAME = "search-index.sqlite3"
VERSION = 4  # PRAGMA user_version: an index of another version is rebuilt
FILE_BITS = 32  # an item's rowid is its file's id << FILE_BITS | its number in the file
PROBE_OVER = 20_000  # more hits than this: the newest sessions are asked one by one (see search)
STALE_MIN = 20_000  # rows of forgotten files past this, and past the live ones: the index is made again
CALL_CAP = 4_000  # characters of a tool call or its output that are indexed
TEXT_CAP = 100_000  # of any other item (a message with a file attached)
CAPPED = frozenset({"call", "output", "hosted", "other"})
OPEN, CLOSE = "\x02", "\x03"  # the snippet's marks: control characters, taken out of what is stored
_MARKS = str.maketrans({OPEN: " ", CLOSE: " "})
_decode = msgspec.json.Decoder().decode

TOKENIZE = "tokenize = 'unicode61 remove_diacritics 2'"

# An item's rowid says its file (the high bits): a session's hits are a range of rowids,
# grouped and counted from the full-text index alone, with no table joined. The full-text
# table keeps no copy of the text (contentless: the session files have it; a copy was
# two thirds of the index): a hit's snippet is made from its line, read again (`at`,
# `part`: the line's offset, the item's place in a compaction's list). Such a table cannot
# delete a row, so a forgotten file's rows stay in it, unseen (its id is never used again:
# AUTOINCREMENT), and are counted (`meta.stale`) until the index is made again.
SCHEMA = f"""
CREATE TABLE files (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE NOT NULL, session TEXT NOT NULL,
                    inode INTEGER NOT NULL, offset INTEGER NOT NULL, items INTEGER NOT NULL,
                    turn INTEGER NOT NULL, created REAL NOT NULL, last REAL NOT NULL, cwd TEXT NOT NULL);
CREATE INDEX files_newest ON files(last, name);
CREATE TABLE items (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, turn INTEGER NOT NULL, time REAL NOT NULL,
                    at INTEGER NOT NULL, part INTEGER NOT NULL);
CREATE VIRTUAL TABLE texts USING fts5(text, content = '', {TOKENIZE});
CREATE TABLE meta (stale INTEGER NOT NULL);
INSERT INTO meta VALUES (0);
PRAGMA user_version = {VERSION};
"""


class BadQuery(RivuletError):
    """The query is not one FTS5 can read (an unclosed quote, a lone operator)."""

    kind = "bad_query"


class StaleIndex(sqlite3.DatabaseError):
    """An index of another version of this schema (or some other database under its name)."""


def damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether `exc` says the index itself is unusable (made again from the files), rather
    than busy or the disk in trouble (said, the index left as it is)."""
    # (sqlite3 sets the error's name only on errors SQLite itself returned)
    name = getattr(exc, "sqlite_errorname", None)
    return isinstance(exc, StaleIndex) or name in ("SQLITE_CORRUPT", "SQLITE_NOTADB")


class Hit(msgspec.Struct, kw_only=True):
    """One session's newest hit: which session, where and when it was said, and a snippet
    with the match between OPEN and CLOSE (raw text: sanitise before showing)."""

    session: str
    path: str
    cwd: str
    created: float
    last: float  # the session's newest record
    turn: int
    kind: str
    time: float
    hits: int  # how many of the session's items match
    snippet: str

    def snippet_parts(self) -> list[tuple[str, bool]]:
        """The snippet on one line as (text, is the match) pieces, each sanitised."""
        from rivulet.core.sanitize import sanitize

        flat = " ".join(self.snippet.split())
        parts: list[tuple[str, bool]] = []
        for n, piece in enumerate(re.split(f"[{OPEN}{CLOSE}]", flat)):
            if piece:
                parts.append((sanitize(piece), n % 2 == 1))
        return parts


class UpdateCount(msgspec.Struct):
    files: int = 0  # files read (from their start or from where they were left)
    items: int = 0  # rows added
    removed: int = 0  # sessions gone from the directory


def index_path(directory: Path) -> Path:
    return directory / INDEX_NAME


class SearchIndex:
    """The index of the session files in `directory`. `update()` catches up with them;
    `search()` asks it. Not shared between threads: each opens its own."""

    def __init__(self, directory: Path, path: Path | None = None) -> None:
        self.directory = directory
        self.path = path or index_path(directory)
        self.rebuilt = False  # the index was found corrupt (or of another version) and made again
        self._db = self._open()

    # -- the database -----------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise
            self._remove()
            self.rebuilt = True
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        if not self.path.exists():  # 0600 from its first byte; SQLite gives its -wal and -shm the same mode
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
        try:
            _to_wal(db)
            db.execute("PRAGMA synchronous = NORMAL")  # a lost last commit is read again from the files
            if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                db.execute("BEGIN IMMEDIATE")  # two processes opening a new index: one makes its tables
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version != VERSION and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    db.execute("ROLLBACK")  # another version's (or a foreign) database: made again
                    raise StaleIndex(f"search index version {version}, not {VERSION}")
                if version != VERSION:
                    for statement in SCHEMA.split(";"):
                        db.execute(statement)
                db.execute("COMMIT")
            db.execute("SELECT count(*) FROM files").fetchone()
        except BaseException:
            db.close()
            raise
        return db

    def _remove(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    def _rebuild(self) -> None:
        self._db.close()
        self._remove()
        self.rebuilt = True
        self._db = self._connect()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- catching up with the files ---------------------------------------------------------
    def update(self) -> UpdateCount:
        """Read what the session files gained since the last update; forget the gone ones.
        A corrupt index found on the way is rebuilt, once."""
        try:
            return self._update()
        except sqlite3.DatabaseError as exc:
            if not damaged(exc):
                raise
            self._rebuild()
            return self._update()

    def _update(self) -> UpdateCount:
        stale, live = self._db.execute("SELECT stale, (SELECT coalesce(sum(items), 0) FROM files) FROM meta").fetchone()
        if stale > STALE_MIN and stale > live:  # more of it is forgotten files' than the sessions'
            self._rebuild()
        count = UpdateCount()
        known = {name: (inode, offset) for name, inode, offset in
                 self._db.execute("SELECT name, inode, offset FROM files")}
        seen: set[str] = set()
        with suppress(FileNotFoundError), os.scandir(self.directory) as entries:
            for entry in entries:
                if not entry.name.endswith(".jsonl"):
                    continue
                try:
                    st = entry.stat()
                except FileNotFoundError:
                    continue
                seen.add(entry.name)
                if known.get(entry.name) == (st.st_ino, st.st_size):
                    continue  # nothing new (the common case: a stat, no read)
                added = self.update_file(Path(entry.path))
                if added is not None:
                    count.files += 1
                    count.items += added
        for name in known.keys() - seen:
            self._forget(name)
            count.removed += 1
        return count

    def update_file(self, path: Path) -> int | None:
        """Index `path`'s new complete lines: how many items they added, or None if there
        was nothing new (or the file is gone)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")  # another process's update of the same file waits: no row twice
        try:
            added = self._read_new(path)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return added

    def _read_new(self, path: Path) -> int | None:
        db = self._db
        row = db.execute("SELECT id, inode, offset, turn, created, last, cwd, items FROM files WHERE name = ?",
                         (path.name,)).fetchone()
        try:
            with open(path, "rb") as f:
                st = os.fstat(f.fileno())
                if row is not None and (row[1] != st.st_ino or row[2] > st.st_size):
                    self._forget(path.name)  # replaced under the same name: read again from its start
                    row = None
                if row is not None and row[2] == st.st_size:
                    return None
                offset = row[2] if row is not None else 0
                f.seek(offset)
                data = f.read(st.st_size - offset)
        except FileNotFoundError:
            return None
        end = data.rfind(b"\n") + 1  # a torn last line is left for the next update
        if row is None:
            made = db.execute("INSERT INTO files (name, session, inode, offset, items, turn, created, last, cwd) "
                              "VALUES (?, ?, ?, 0, 0, 0, 0, 0, '')", (path.name, path.stem, st.st_ino))
            assert made.lastrowid is not None  # (an INSERT of a row always sets it)
            file_id = made.lastrowid
            state, items = _FileState(0, 0.0, 0.0, ""), 0
        else:
            file_id, items = row[0], row[7]
            state = _FileState(row[3], row[4], row[5], row[6])
        rows = list(_rows(data[:end], offset, state))
        first = (file_id << FILE_BITS) + items
        db.executemany("INSERT INTO items (id, kind, turn, time, at, part) VALUES (?, ?, ?, ?, ?, ?)",
                       [(first + n, r.kind, r.turn, r.time, r.at, r.part) for n, r in enumerate(rows)])
        db.executemany("INSERT INTO texts (rowid, text) VALUES (?, ?)",
                       [(first + n, r.text) for n, r in enumerate(rows)])
        db.execute("UPDATE files SET inode = ?, offset = ?, items = ?, turn = ?, created = ?, last = ?, cwd = ? "
                   "WHERE id = ?", (st.st_ino, offset + end, items + len(rows), state.turn, state.created,
                                    state.last, state.cwd, file_id))
        return len(rows)

    def _forget(self, name: str) -> None:
        db = self._db
        row = db.execute("SELECT id, items FROM files WHERE name = ?", (name,)).fetchone()
        if row is None:
            return
        db.execute("DELETE FROM items WHERE id BETWEEN ? AND ?", _span(row[0]))
        db.execute("DELETE FROM files WHERE id = ?", (row[0],))
        db.execute("UPDATE meta SET stale = stale + ?", (row[1],))  # (its texts stay, never shown)

    # -- asking it --------------------------------------------------------------------------
    def search(self, query: str, *, cwd: str | None = None, limit: int = 20) -> list[Hit]:
        """The sessions with an item matching `query` (FTS5's syntax: words, "a phrase",
        prefix*, AND / OR / NOT, NEAR), newest first, each with its newest hit; only those
        started in `cwd` when it is given. BadQuery for a query FTS5 cannot read.

        A query with few hits groups them all by session (their rowids: the index alone).
        One with many (a common word) asks the newest sessions one by one for their newest
        hit, a seek in the index each, until `limit` have one: grouping 100,000 hits costs
        more than the 20 newest sessions' seeks."""
        check_query(query)
        db = self._db
        # Counted only as far as the choice needs: a common word's 100,000 hits are not all walked.
        total = db.execute("SELECT count(*) FROM (SELECT 1 FROM texts WHERE texts MATCH ? LIMIT ?)",
                           (query, PROBE_OVER + 1)).fetchone()[0]
        if not total:
            return []
        columns, newest = "id, session, name, cwd, created, last", "ORDER BY last DESC, name DESC"
        where, args = ("WHERE cwd = ?", (cwd,)) if cwd is not None else ("", ())
        found: list[tuple[tuple[Any, ...], int, int]] = []  # (the session's row, its newest hit, its hits)
        if total <= PROBE_OVER:
            grouped = {file: (best, n) for file, best, n in db.execute(
                f"SELECT rowid >> {FILE_BITS}, max(rowid), count(*) FROM texts WHERE texts MATCH ? GROUP BY 1",
                (query,))}
            rows = db.execute(f"SELECT {columns} FROM files WHERE id IN (SELECT value FROM json_each(?)) "
                              f"{'AND cwd = ?' if cwd is not None else ''} {newest} LIMIT ?",
                              (json.dumps(list(grouped)), *args, limit)).fetchall()
            found = [(row, *grouped[row[0]]) for row in rows]
        else:
            for row in db.execute(f"SELECT {columns} FROM files {where} {newest}", args):  # (read as asked for)
                best, n = db.execute("SELECT max(rowid), count(*) FROM texts WHERE texts MATCH ? AND rowid "
                                     "BETWEEN ? AND ?", (query, *_span(row[0]))).fetchone()
                if n:
                    found.append((row, best, n))
                    if len(found) == limit:
                        break
        hits = []
        for (_, session, name, where_, created, last), best, n in found:
            kind, turn, when, at, part = db.execute("SELECT kind, turn, time, at, part FROM items WHERE id = ?",
                                                    (best,)).fetchone()
            hits.append(Hit(session=session, path=str(self.directory / name), cwd=where_, created=created,
                            last=last, turn=turn, kind=kind, time=when, hits=n,
                            snippet=_text_at(self.directory / name, at, part)))
        return _with_snippets(hits, query)


def _to_wal(db: sqlite3.Connection, wait: float = 10.0) -> None:
    """The index in WAL mode. A file already in it stays so (the mode is kept in the file).
    Switching a new one takes an exclusive lock, and SQLite answers "database is locked"
    at once, not after its busy timeout, when another process opening the same new file
    holds a lock: that is waited for here, as the timeout would."""
    deadline = time.monotonic() + wait
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _span(file_id: int) -> tuple[int, int]:
    """The rowids of a file's items."""
    return file_id << FILE_BITS, ((file_id + 1) << FILE_BITS) - 1


def _text_at(path: Path, at: int, part: int) -> str:
    """The indexed text of the item on the line at `at` (`part`: its place in a compaction's
    list, -1 for an item line), read again from the session file ("" if it has changed)."""
    try:
        with open(path, "rb") as f:
            f.seek(at)
            record = _decode(f.readline())
    except (OSError, msgspec.DecodeError, ValueError):
        return ""
    if not isinstance(record, dict):
        return ""
    items = record.get("items")
    if part < 0:
        item = record.get("item")
    else:
        item = items[part] if isinstance(items, list) and part < len(items) else None
    row = _row(item, 0, 0.0, at, part) if isinstance(item, dict) else None
    return row.text if row is not None else ""


def _with_snippets(hits: list[Hit], query: str) -> list[Hit]:
    """Each hit's text (in its snippet field) cut to a snippet with the match marked: FTS5's
    own snippet(), over a table in memory that holds these texts alone."""
    with closing(sqlite3.connect(":memory:")) as db:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, {TOKENIZE})")
        db.executemany("INSERT INTO t (rowid, text) VALUES (?, ?)", [(n, h.snippet) for n, h in enumerate(hits)])
        cut = dict(db.execute("SELECT rowid, snippet(t, 0, ?, ?, '…', 16) FROM t WHERE t MATCH ?",
                              (OPEN, CLOSE, query)))
    for n, hit in enumerate(hits):  # (a text that changed since it was indexed may no longer match)
        hit.snippet = cut.get(n) or " ".join(hit.snippet[:200].split())
    return hits


def check_query(query: str) -> None:
    """BadQuery if FTS5 cannot read `query`: asked of an empty table in memory, so that
    whatever it says is about the query, never about the index (a lock, the disk)."""
    with closing(sqlite3.connect(":memory:")) as db:
        db.execute("CREATE VIRTUAL TABLE q USING fts5(text)")
        try:
            db.execute("SELECT rowid FROM q WHERE q MATCH ?", (query,)).fetchall()
        except sqlite3.OperationalError as exc:
            why = str(exc).removeprefix("fts5: ")
            raise BadQuery(f"not a search query ({why}): put words with punctuation in double quotes") from None


class _FileState:
    """What a file's earlier lines said that its next ones need: the turn under way, the
    session's creation, its newest record and its workspace."""

    __slots__ = ("created", "cwd", "last", "turn")

    def __init__(self, turn: int, created: float, last: float, cwd: str) -> None:
        self.turn, self.created, self.last, self.cwd = turn, created, last, cwd


class _Row(NamedTuple):
    turn: int
    kind: str
    time: float
    text: str
    at: int  # the offset of its line in the file
    part: int  # its place in a compaction's list of items; -1: an item line


def _rows(data: bytes, offset: int, state: _FileState) -> Iterator[_Row]:
    """A row for each item in these complete lines (read from `offset`); `state` follows them."""
    at = offset
    for raw in data.split(b"\n"):
        line_at, at = at, at + len(raw) + 1
        if not raw.strip():
            continue
        try:
            record = _decode(raw)
        except (msgspec.DecodeError, ValueError):
            continue  # (the loader warns of it; the index just has nothing from that line)
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        when = record.get("time")
        if isinstance(when, (int, float)) and not isinstance(when, bool):
            state.last = max(state.last, float(when))
        else:
            when = state.last
        if kind == "session":
            created = record.get("created")
            state.created = float(created) if isinstance(created, (int, float)) else 0.0
            state.last = max(state.last, state.created)
            state.cwd = str(record.get("cwd") or "")
        elif kind == "turn" and record.get("event") == "started" and isinstance(record.get("turn_id"), int):
            state.turn = record["turn_id"]
        elif kind in ("item", "subagent_item") and isinstance(record.get("item"), dict):  # a subagent's: in its turn
            key = record.get("key")
            if kind == "item" and isinstance(key, str) and key.startswith("user-") and key[5:].isdigit():
                state.turn = int(key[5:])  # (files with no turn records: the user message's key)
            row = _row(record["item"], state.turn, float(when), line_at, -1)
            if row is not None:
                yield row
        elif kind == "compact" and isinstance(record.get("items"), list):
            for part, item in enumerate(record["items"]):
                row = _row(item, state.turn, float(when), line_at, part) if isinstance(item, dict) else None
                if row is not None:
                    yield row


def _row(item: dict[str, Any], turn: int, when: float, at: int, part: int) -> _Row | None:
    kind = kind_of(item)
    try:
        text = kind.search_text(item, None)
    except (TypeError, ValueError, AttributeError):  # a hostile file's item of the wrong shape
        return None
    if not text.strip():
        return None
    text = text[: CALL_CAP if kind.name in CAPPED else TEXT_CAP]
    return _Row(turn, kind.name, when, text.translate(_MARKS), at, part)


def open_index(directory: Path | None = None) -> SearchIndex:
    """The index of `directory` (the sessions directory by default), made 0700 if new."""
    from rivulet.core.config_sources import sessions_dir
    from rivulet.core.store.session import private_dir

    return SearchIndex(private_dir(directory or sessions_dir()))
