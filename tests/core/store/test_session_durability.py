"""When the session file reaches the disk (group commit), and what it does when the disk
will not take it (issue 22's fsync policy, issue 23.2's full disk, 23.6's file format)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.many_items import many_items_body
from helpers.mock_api import serving, settings
from helpers.small_disk import fill, mounted_tmpfs
from helpers.streams import body, call, call_events, completed, created, message, message_events

from rivulet.core import items as it
from rivulet.core.store.append_log import AppendLog
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.store.session import (
    SessionNewer,
    SessionWriter,
    list_sessions,
    load_session,
    open_for_resume,
)
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.history import History
from rivulet.core.turn.tool_api import NoTools

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


class FsyncLog:
    """An injected fsync: the file's size at each call (what a power cut would keep)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, fd: int) -> None:
        self.sizes.append(os.fstat(fd).st_size)


class Clock:
    def __init__(self, step: float = 0.0) -> None:
        self.now, self.step = 1000.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Timers:
    """An injected scheduler: the timer callbacks wait until the test runs them."""

    def __init__(self) -> None:
        self.armed: list[tuple[float, object]] = []

    def __call__(self, delay, callback):
        self.armed.append((delay, callback))
        return self

    def cancel(self) -> None:
        self.armed.clear()


# ---- group commit (issue 22) -------------------------------------------------------------

def test_each_record_is_written_at_once_and_fsynced_at_most_every_100_ms(tmp_path):
    fd = os.open(tmp_path / "log", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    fsyncs, clock, timers = FsyncLog(), Clock(), Timers()
    log = AppendLog(fd, fsync=fsyncs, clock=clock, schedule=timers)
    written = 0
    for n in range(1000):  # one record a millisecond for one second
        clock.now += 0.001
        record = f'{{"n":{n}}}\n'.encode()
        log.append(record)
        written += len(record)
        assert os.fstat(fd).st_size == written  # in the kernel already: a kill -9 loses nothing
    assert 9 <= len(fsyncs.sizes) <= 11  # every ~100 ms, not 1,000 times
    # The appends stop: the tail is not left unsynced until the next one, a timer syncs it.
    assert timers.armed and fsyncs.sizes[-1] < written
    _delay, callback = timers.armed.pop()
    callback()
    assert fsyncs.sizes[-1] == written
    log.close()


async def test_ten_thousand_items_in_one_response_cost_a_handful_of_fsyncs(tmp_path):
    fsyncs = FsyncLog()
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path, fsync=fsyncs,
                                        clock=Clock(step=0.00001), schedule=None)
    conv = Conversation(settings(), serving(many_items_body(10_000)), session=writer)
    await conv.run_turn("many")
    assert len(conv.history) == 10_001
    assert 1 <= len(fsyncs.sizes) <= 10, len(fsyncs.sizes)  # main: 10,004
    # The turn's end is durable: the last fsync saw the whole file, its end record included.
    assert fsyncs.sizes[-1] == meta.path.stat().st_size
    writer.close()
    assert len(load_session(meta.path).history) == 10_001


async def test_a_tool_call_is_fsynced_before_the_tool_runs(tmp_path):
    fsyncs = FsyncLog()
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path, fsync=fsyncs,
                                        clock=Clock(), schedule=None)  # the clock stands still: no timed fsync
    seen: list[tuple[int, int]] = []

    class Tools(NoTools):
        def specs(self):
            return [{"type": "function", "name": "lookup", "parameters": {"type": "object"}}]

        async def run(self, call_item):
            data = meta.path.read_bytes()
            call_end = data.index(b'"call_id":"call_1"')
            seen.append((call_end, fsyncs.sizes[-1] if fsyncs.sizes else 0))
            return {"type": "function_call_output", "call_id": call_item["call_id"], "output": "found"}

    first = body([created("r1"), *call_events("fc_1", "call_1", "lookup", '{"q": 1}'),
                  completed([call("fc_1", "call_1", "lookup", '{"q": 1}')], "r1")])
    second = body([created("r2"), *message_events("m2", "done"), completed([message("m2", "done")], "r2")])
    conv = Conversation(settings(), serving(first, second), tools=Tools(), session=writer)
    await conv.run_turn("look it up")
    writer.close()
    [(call_at, synced)] = seen
    assert synced > call_at  # the call's record was on disk before the tool started


# ---- a full disk (issue 23.2), on a real tmpfs -------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    with mounted_tmpfs(tmp_path / "disk") as disk:
        yield disk


def big(n: int) -> dict:
    return it.user_message(f"item {n} " + "x" * 8000)  # larger than any page left free


def test_a_full_disk_stops_saving_only_until_space_is_freed(small_disk):
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=small_disk)
    history = History(observers=[writer.observe])
    history.append(it.user_message("before"), key="user-1")
    filler = fill(small_disk)
    for n in range(3):
        history.append(big(n), key=f"big-{n}")
    assert writer.failed and "No space left on device" in writer.failed and "3 items wait" in writer.failed
    assert load_session(meta.path).warnings == []  # whole records only, no torn line
    filler.unlink()
    history.append(it.user_message("after"), key="user-2")  # the next commit (after 100 ms) or turn end
    writer.turn_ended(1, None, "completed")                 # writes what waited
    assert writer.failed is None
    writer.close()
    loaded = load_session(meta.path)
    assert loaded.history.items == history.items and loaded.warnings == []  # main: 3 items and "after" missing
    assert writer.closing_note() is None


def test_a_disk_still_full_at_the_end_is_noted_in_the_file_and_resume_says_so(small_disk):
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=small_disk)
    history = History(observers=[writer.observe])
    history.append(it.user_message("before"), key="user-1")
    fill(small_disk)
    for n in range(3):
        history.append(big(n), key=f"big-{n}")
    writer.close()
    note = writer.closing_note()
    assert note and "3 items of this conversation were not saved" in note and "No space left" in note
    loaded = load_session(meta.path)
    assert [it.message_text(i) for i in loaded.history] == ["before"]
    assert any("3 items were not saved" in w for w in loaded.warnings)
    assert not any("killed" in w for w in loaded.warnings)


def test_no_empty_session_file_is_left_and_an_old_one_is_ignored_quietly(small_disk, caplog):
    fill(small_disk)
    sessions = small_disk / "sessions"
    writer = LazySessionWriter(model="m", base_url="u", directory=sessions)
    history = History(observers=[writer.observe])
    history.append(big(0), key="user-1")  # the file is created, but not even its first line fits
    writer.close()
    assert list(sessions.glob("*.jsonl")) == []  # main: a 0-byte file, warned about forever
    assert writer.path is None and "not saved" in (writer.closing_note() or "")
    (sessions / "20250101-000000-abcdef.jsonl").touch()  # what an older rivulet left
    caplog.clear()
    assert list_sessions(sessions) == [] and not caplog.records


def test_exec_says_on_its_last_line_and_in_its_status_that_the_session_was_not_saved(small_disk, demo):
    sessions = small_disk / "sessions"
    sessions.mkdir()
    fill(small_disk)
    env = {**os.environ, "RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": os.devnull}
    ran = subprocess.run([*RIVULET, "exec", "hello", "--base-url", demo.base_url], capture_output=True, text=True,
                         env=env, timeout=60)
    assert ran.stdout.strip()  # the answer is printed all the same
    last = ran.stderr.strip().splitlines()[-1]
    assert ran.returncode == 3 and "not saved" in last, ran.stderr  # main: exit 0
    assert "Traceback" not in ran.stderr
    assert [p for p in sessions.glob("*.jsonl") if p.stat().st_size == 0] == []


RIVULET = [sys.executable, "-m", "rivulet.app"]


# ---- the file format (issue 23.6) -------------------------------------------------------

def test_a_torn_tail_is_cut_and_recorded_when_a_writer_reopens_the_file(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
    History(observers=[writer.observe]).append(it.user_message("kept"), key="user-1")
    writer.close()
    whole = meta.path.stat().st_size
    with open(meta.path, "ab") as f:
        f.write(b'{"type":"item","seq":2,"item":{"type":"mess')  # killed mid-write
    assert load_session(meta.path).warnings  # once, when it is found
    SessionWriter(meta.path).close()  # a resume reopens it
    data = meta.path.read_bytes()
    assert b'"seq":2' not in data and len(data) > whole
    repair = json.loads(data.splitlines()[-1])
    assert repair["type"] == "repair" and repair["dropped_bytes"] == 43
    assert load_session(meta.path).warnings == []  # main: "a line that is not JSON", on every load


def test_a_file_of_a_newer_format_is_forked_never_appended_to(tmp_path):
    path = tmp_path / "20300101-000000-future.jsonl"
    head = {"type": "session", "format": 99, "id": "20300101-000000-future", "created": 1.0, "cwd": "/w",
            "model": "m", "base_url": "u"}
    lines = [head, {"type": "item", "seq": 1, "key": "user-1", "item": it.user_message("from the future")},
             {"type": "hologram", "x": 1}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    original = path.read_bytes()
    with pytest.raises(SessionNewer):
        SessionWriter(path)
    session = load_session(path)
    writer, session = open_for_resume(path, session)
    session.history.observers.append(writer.observe)
    session.history.append(it.user_message("now"), key="user-2")
    writer.close()
    assert path.read_bytes() == original  # main: rivulet's lines appended to it
    assert writer.path != path
    [why] = [w for w in session.warnings if "newer rivulet" in w and "left untouched" in w]
    assert "format 99" in why and "\n" not in why
    forked = load_session(writer.path)
    assert [it.message_text(i) for i in forked.history] == ["from the future", "now"] and forked.warnings == []


# ---- exec's sessions (issue 23.8) -------------------------------------------------------

def _exec(demo, sessions: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": os.devnull}
    return subprocess.run([*RIVULET, *argv, "--base-url", demo.base_url], capture_output=True, text=True,
                          env=env, timeout=60)


def test_exec_saves_no_session_for_a_blank_prompt_or_with_ephemeral(tmp_path, demo):
    sessions = tmp_path / "s"
    _exec(demo, sessions, "exec", "  \n")
    assert list(sessions.glob("*.jsonl")) == []  # main: a session for every blank run
    ran = _exec(demo, sessions, "exec", "hello", "--ephemeral")
    assert ran.returncode == 0 and ran.stdout.strip() and list(sessions.glob("*.jsonl")) == []


def test_sessions_tells_exec_runs_from_chats(tmp_path, demo):
    sessions = tmp_path / "s"
    ran = _exec(demo, sessions, "exec", "hello from a script")
    assert ran.returncode == 0
    chat = LazySessionWriter(model="m", base_url="u", cwd=os.getcwd(), directory=sessions)
    History(observers=[chat.observe]).append(it.user_message("hello from the chat"), key="user-1")
    chat.close()
    assert {s.meta.frontend for s in list_sessions(sessions)} == {"exec", "chat"}
    listed = _exec(demo, sessions, "sessions").stdout.splitlines()
    assert "FROM" in listed[1]
    [script] = [line for line in listed if "hello from a script" in line]
    [typed] = [line for line in listed if "hello from the chat" in line]
    assert " exec " in script and " chat " in typed


def test_the_notes_about_the_file_are_untrusted_text(tmp_path):
    path = tmp_path / "hostile.jsonl"
    lines = [{"type": "session", "format": 1, "id": "hostile", "created": 1.0, "cwd": "/", "model": "m",
              "base_url": "u", "frontend": "\x1b]52;c;ZXZpbA==\x07exec"},
             {"type": "unsaved", "items": 2, "reason": "\x1b[2J\x1b]0;owned\x07disk"},
             {"type": "unsaved", "items": -5, "reason": "negative"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    from rivulet.app.picker import session_choice, session_line

    session = load_session(path)
    [note] = [w for w in session.warnings if "not saved" in w]  # a negative count is no such note
    assert "2 items were not saved" in note and "\x1b" not in note and "\x07" not in note
    assert "\x1b" not in session_line(session) and "\x07" not in session_line(session)
    assert not any("\x1b" in part or "\x07" in part for part in session_choice(session))  # the pickers' rows
