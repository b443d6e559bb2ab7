"""Session files: written as items commit, loadable after kill -9 at any moment, resumed
into the same transcript, inspected, exported and replayed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.mock_api import serving, settings
from helpers.paths import REAL
from helpers.streams import (
    body,
    call,
    call_events,
    completed,
    created,
    message,
    message_events,
    reasoning,
    reasoning_events,
)
from helpers.tui import GatedServer, settled, until

from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.protocol.replay import ReplayTransport
from rivulet.core.store.export import to_json, to_markdown
from rivulet.core.store.session import SessionError, SessionWriter, find_session, list_sessions, load_session
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.history import History

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def two_turns() -> list[bytes]:
    first = body([created("r1"), *reasoning_events("rs_1", "**Plan**\n\nlook it up", 0),
                  *call_events("fc_1", "call_1", "lookup", '{"q": 1}', 1),
                  completed([reasoning("rs_1", "**Plan**\n\nlook it up"), call("fc_1", "call_1", "lookup", '{"q": 1}')],
                            "r1")])
    second = body([created("r2"), *message_events("m2", "Looked it up: **nothing**."),
                   completed([message("m2", "Looked it up: **nothing**.")], "r2")])
    third = body([created("r3"), *message_events("m3", "Second answer."), completed([message("m3", "Second answer.")],
                                                                                  "r3")])
    return [first, second, third]


async def test_the_file_holds_every_committed_item_and_turn(tmp_path):
    writer, meta = SessionWriter.create(model="gpt-test", base_url="https://api.example.com/v1", cwd="/work",
                                        directory=tmp_path)
    conv = Conversation(settings(), serving(*two_turns()), session=writer)
    await conv.run_turn("find it")
    await conv.run_turn("and again")
    writer.close()
    loaded = load_session(meta.path)
    assert loaded.history.items == conv.history.items
    assert [e.key for e in loaded.history.entries] == [e.key for e in conv.history.entries]
    assert [(t.turn_id, t.prompt) for t in loaded.turns] == [(1, "find it"), (2, "and again")]
    assert loaded.turns[0].usage["total_tokens"] == 16 and loaded.warnings == []
    assert loaded.meta.model == "gpt-test" and loaded.meta.cwd == "/work" and loaded.first_prompt == "find it"
    # Resumed, the conversation numbers on and sends the same history.
    resumed = Conversation(settings(), serving(*two_turns()[2:]), history=loaded.history)
    assert resumed.turns == 2 and resumed.history.to_input() == conv.history.to_input()


def test_no_secret_reaches_the_file(tmp_path):
    from rivulet.core.server_endpoint import safe_url

    writer, meta = SessionWriter.create(model="m", base_url=safe_url("https://user:hunter2@api.example.com/v1?key=sk-zz"),
                                        directory=tmp_path)
    writer.close()
    text = meta.path.read_text()
    assert "hunter2" not in text and "sk-zz" not in text and "api.example.com/v1" in text
    assert oct(meta.path.stat().st_mode & 0o777) == "0o600"


def test_a_torn_last_line_is_ignored_with_a_warning(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
    history = History(observers=[writer.observe])
    history.append(it.user_message("kept"), key="user-1")
    writer.close()
    with open(meta.path, "ab") as f:
        f.write(b'{"type":"item","seq":2,"item":{"type":"mess')  # killed mid-write
    loaded = load_session(meta.path)
    assert [it.message_text(i) for i in loaded.history] == ["kept"]
    assert loaded.warnings and "incomplete last line" in loaded.warnings[0]
    # Appending to it again (a resume) starts on a fresh line, and the file still loads.
    writer = SessionWriter(meta.path)
    history = load_session(meta.path).history
    history.observers.append(writer.observe)
    history.append(it.user_message("after"), key="user-2")
    writer.close()
    assert [it.message_text(i) for i in load_session(meta.path).history] == ["kept", "after"]


def test_truncate_and_reorder_replay(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
    history = History(observers=[writer.observe])
    for n in range(3):
        history.append(message(f"m{n}", f"text {n}"), segment="req-1", key=f"m{n}")
    history.reorder_response("req-1", ["m2", "m0", "m1"])
    history.append(it.user_message("undone"), key="user-9")
    history.truncate(3)
    writer.close()
    assert load_session(meta.path).history.items == history.items
    assert [i["id"] for i in history.items] == ["m2", "m0", "m1"]


def test_finding_and_listing_sessions(tmp_path):
    a, ma = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
    a.close()
    time.sleep(0.01)  # distinct creation times (ordering, not timing, is asserted)
    b, mb = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
    b.close()
    assert [s.meta.id for s in list_sessions(tmp_path)] == [mb.id, ma.id]
    assert find_session(ma.id, tmp_path) == ma.path
    assert find_session(str(mb.path), tmp_path) == mb.path
    with pytest.raises(SessionError, match="no session"):
        find_session("nope", tmp_path)
    (tmp_path / "junk.jsonl").write_text("not a session\n")
    assert len(list_sessions(tmp_path)) == 2  # unreadable files are skipped


def test_export_markdown_and_json(tmp_path):
    writer, meta = SessionWriter.create(model="gpt-test", base_url="u", directory=tmp_path)
    history = History(observers=[writer.observe])
    history.append(it.user_message("hi \x1b]52;c;bad\x07"), key="user-1")
    history.append(call("fc", "c1", "shell", '{"command": "ls"}'), segment="req-1", key="fc")
    history.append({"type": "function_call_output", "call_id": "c1", "output": "a.txt\n```\nb"}, key="c1:output")
    history.append(message("m", "Done **now**."), segment="req-2", key="m")
    writer.close()
    session = load_session(meta.path)
    md = to_markdown(session)
    assert "## User\n\nhi" in md and "## Assistant\n\nDone **now**." in md
    assert "### Tool call: `shell`" in md and "````\na.txt\n```\nb\n````" in md  # a longer fence around ```
    assert "\x1b" not in md and "\x07" not in md
    data = json.loads(to_json(session))
    assert [i["item"] for i in data["items"]] == session.history.items and data["session"]["id"] == meta.id


def _cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rivulet.app", *args], capture_output=True, text=True, env=env,
                          timeout=60)


def test_cli_sessions_and_export(tmp_path):
    writer, meta = SessionWriter.create(model="gpt-test", base_url="u", directory=tmp_path)
    History(observers=[writer.observe]).append(it.user_message("list me"), key="user-1")
    writer.close()
    env = {**os.environ, "RIVULET_SESSIONS_DIR": str(tmp_path)}
    listed = _cli("sessions", env=env)
    assert listed.returncode == 0 and meta.id in listed.stdout and "list me" in listed.stdout
    out = tmp_path / "out.md"
    exported = _cli("export", meta.id[:12], "--format", "md", "-o", str(out), env=env)
    assert exported.returncode == 0 and "## User\n\nlist me" in out.read_text()
    missing = _cli("export", "no-such-id", env=env)
    assert missing.returncode == 1 and "no session" in missing.stderr


# ---- kill -9 ------------------------------------------------------------------------

def _run_and_kill(aimock_url: str, sessions: Path, kill_after_items: int | None, delay: float) -> tuple[list, list]:
    """Start `rivulet exec`, SIGKILL it once it has printed `kill_after_items` commits (or
    after `delay` s); return (items printed as committed, items in the session file)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": os.devnull,
                "PYTHONUNBUFFERED": "1"})
    proc = subprocess.Popen([sys.executable, "-m", "rivulet.app", "exec", "slow-multi", "--json", "--base-url",
                             aimock_url, "--approval", "never-ask"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    printed: list[dict] = []
    start = time.monotonic()
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    buffer = b""
    while proc.poll() is None:
        try:
            buffer += os.read(fd, 65536)
        except BlockingIOError:
            pass
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            event = json.loads(line)
            if event["type"] == "item.completed":
                printed.append(event["item"])
        if kill_after_items is not None and len(printed) >= kill_after_items:
            break
        if kill_after_items is None and time.monotonic() - start >= delay:
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    files = list(sessions.glob("*.jsonl"))
    if not files:  # killed before the session began: nothing can have been committed
        assert printed == []
        return printed, []
    assert len(files) == 1
    return printed, load_session(files[0]).history.items


def test_kill_9_at_many_points_leaves_files_that_load_with_exactly_the_committed_items(aimock, tmp_path):
    full_printed, full_items = _run_and_kill(aimock, tmp_path / "full", None, 30.0)
    # (aimock gives the follow-up a reasoning item of its own: we ask for encrypted reasoning.)
    assert [i["type"] for i in full_items] == ["message", "reasoning", "message", "function_call",
                                              "function_call_output", "reasoning", "message"]
    assert full_printed == full_items
    points = [(k, 0.0) for k in range(1, len(full_items))] + [(None, d) for d in (0.3, 0.6, 0.9, 1.2, 1.6, 2.0)]
    for n, (k, delay) in enumerate(points):
        printed, items = _run_and_kill(aimock, tmp_path / f"kill{n}", k, delay)
        # What the file holds is what was committed: a prefix of the full run, and it
        # includes everything the process announced as committed before it died.
        assert _shape(items) == _shape(full_items)[:len(items)], f"kill point {k, delay}"
        assert printed == items[:len(printed)], f"kill point {k, delay}"


def _shape(items: list[dict]) -> list[dict]:
    """Items without what differs between two runs: aimock's fresh ids, the clock's time."""
    out = []
    for item in items:
        clean = {k: v for k, v in item.items() if k not in ("id", "call_id", "encrypted_content")}
        if it.is_output(clean):
            clean["output"] = "<the time>"
        out.append(clean)
    return out


# ---- in the chat UI ----------------------------------------------------------------------

async def test_resume_rebuilds_the_transcript_and_sends_a_valid_next_request(tmp_path, snap_compare=None):
    responses = two_turns()
    from helpers.calls import assert_valid_request
    from helpers.tui import follow_up_payloads, shown_entries

    sessions = tmp_path / "s"
    writer, meta = SessionWriter.create(model="gpt-5.1-codex", base_url="http://test.invalid/v1", directory=sessions)
    server = GatedServer(*[_payloads(b) for b in responses])
    app = RivuletApp(settings(), server.transport(), session_writer=writer, remember_theme=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"find it", "enter")
        await until(pilot, lambda: len(server.requests) == 2 and settled(app), "turn 1")
        await pilot.press(*"and again", "enter")
        await until(pilot, lambda: len(server.requests) == 3 and settled(app), "turn 2")
        before = shown_entries(app)  # (key, item, output) of each, widget or frozen line
        original = app.conversation.history.items
    session = load_session(meta.path)
    assert session.history.items == original
    server2 = GatedServer(follow_up_payloads("Third answer.", "r4"))
    app2 = RivuletApp(settings(), server2.transport(), session=session, session_writer=SessionWriter(meta.path),
                      remember_theme=False)
    async with app2.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: len(shown_entries(app2)) == len(before), "the rebuilt transcript")
        # The same entries, in the same order, each call with its output (which of them are
        # widgets differs: a live turn freezes as it goes, a resume mounts the newest few).
        assert shown_entries(app2) == before
        assert [item["type"] for _, item, _ in before] == ["message", "reasoning", "function_call", "message",
                                                           "message", "message"]
        for tool in app2._transcript.query("ToolCallEntry"):  # a widget: it draws that output
            assert "not available" in str(tool.query_one(".tool-output").render())
        [output] = [out for _, item, out in before if item["type"] == "function_call"]
        assert output is not None and "not available" in output["output"]
        await pilot.press(*"third", "enter")
        await until(pilot, lambda: server2.requests and settled(app2), "the next turn")
        sent = server2.requests[0]["input"]
        assert_valid_request(sent)
        assert sent[:-1] == Conversation(settings(), server2.transport(), history=session.history).history.to_input()[
            :len(sent) - 1]
        assert it.message_text(sent[-1]) == "third" or sent[-1]["content"][0]["text"] == "third"
    # The same file holds all three turns now.
    assert [t.prompt for t in load_session(meta.path).turns] == ["find it", "and again", "third"]


def _payloads(raw: bytes) -> list[str]:
    from rivulet.core.protocol.recordings import sse_payloads

    return sse_payloads(raw)


async def test_inspector_filters_searches_and_shows_raw_json(tmp_path):
    from textual.widgets import DataTable, Input, Select, TextArea

    from rivulet.widgets.inspector import InspectorScreen, RawItemScreen

    server = GatedServer(*[_payloads(b) for b in two_turns()])
    app = RivuletApp(settings(), server.transport(), remember_theme=False)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"find it", "enter")
        await until(pilot, lambda: len(server.requests) == 2 and settled(app), "turn 1")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        table = screen.query_one(DataTable)
        assert table.row_count == len(app.conversation.history) == 5
        screen.query_one(Select).value = "function_call"
        await pilot.pause()
        assert [e.item["type"] for e in screen.shown] == ["function_call"]
        screen.query_one(Select).clear()
        screen.query_one(Input).value = "looked it up"
        await pilot.pause()
        assert [e.item["type"] for e in screen.shown] == ["message"]
        table.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RawItemScreen) and app.screen.query(TextArea), "the raw item")
        raw = app.screen.query_one(TextArea).text
        assert json.loads(raw) == app.conversation.history.items[-1]
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "back to the list")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, InspectorScreen), "closed")
        # From a transcript entry straight to its raw item.
        entry = app._transcript.query("AssistantEntry").first()
        app.open_raw_item(entry.item_id)
        await until(pilot, lambda: isinstance(app.screen, RawItemScreen) and app.screen.query(TextArea),
                    "the entry's raw item")
        assert json.loads(app.screen.query_one(TextArea).text) == entry.item


async def test_replay_plays_a_real_capture_through_the_ui(tmp_path):
    from rivulet.widgets.entries import AssistantEntry, ErrorEntry, ToolCallEntry

    path = REAL / "dd-trace-py" / "response_function_call_streamed.1.sse"
    transport = ReplayTransport(path, speed=0)
    s = settings(max_retries=0, max_follow_ups=0, save_sessions=False)
    app = RivuletApp(s, transport, replay=path.name, remember_theme=False)
    async with app.run_test(size=(100, 40)) as pilot:
        # The status line starts idle: wait for the turn's entries, not for a state it had already.
        await until(pilot, lambda: app.conversation and app.conversation.turns == 1 and app._status.state != "working"
                    and app.query(ErrorEntry), "the replay")
        assert "REPLAY" in str(app.query_one("#banner").render())
        recorded = [json.loads(p) for p in transport.recordings[0].payloads]
        final = next(e for e in recorded if e["type"] == "response.completed")["response"]["output"]
        committed = [i for i in app.conversation.history.items if i.get("role") != "user" and not it.is_output(i)]
        assert committed == final
        assert app.query(ToolCallEntry) or app.query(AssistantEntry)


async def test_a_session_file_that_cannot_be_written_does_not_stop_the_conversation(tmp_path):
    writer, _meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
    read_only = os.open(os.devnull, os.O_RDONLY)
    os.dup2(read_only, writer._fd)  # every write now fails, as on a broken disk
    os.close(read_only)
    conv = Conversation(settings(), serving(*two_turns()), session=writer)
    result = await conv.run_turn("go on")
    assert result.last_message == "Looked it up: **nothing**." and len(conv.history) == 5
    assert writer.failed and "could not be written" in writer.failed
    writer.close()


def _long_session(turns: int):
    from rivulet.core.store.session import Session, SessionMeta

    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 1}")
        history.append(message(f"m{n}", f"Answer **{n}**."), "req-1", f"m{n}")
    return Session(SessionMeta("long", 0, "/", "m", "u"), history)


async def test_a_long_session_resumes_with_old_entries_frozen_and_still_clickable(tmp_path):
    from textual.widgets import TextArea

    from rivulet.app.resume import RESUME_WIDGETS
    from rivulet.widgets.entries import TranscriptEntry
    from rivulet.widgets.frozen_entries import FrozenEntries
    from rivulet.widgets.inspector import RawItemScreen

    session = _long_session(100)
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session, remember_theme=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app._transcript.query(FrozenEntries) and len(app._transcript.query(TranscriptEntry)) ==
                    RESUME_WIDGETS, "the rebuilt transcript")
        frozen = app._transcript.query_one(FrozenEntries)
        assert [key for key, _, _ in frozen.entries] == [e.key for e in session.history.entries][:200 - RESUME_WIDGETS]
        # Home reaches the very first entry: it is drawn once it can be seen.
        app.action_scroll_transcript("top")
        await pilot.pause()
        await pilot.pause()
        lines = ["".join(seg.text for seg in frozen.render_line(y)) for y in range(frozen.drawn_lines)]
        assert any("question 0" in line for line in lines) and any("Answer 5." in line for line in lines)
        row = next(y for y, line in enumerate(lines) if "question 7" in line)
        assert frozen.key_at(row) == "user-8"
        app.open_raw_item(frozen.key_at(row))
        await until(pilot, lambda: isinstance(app.screen, RawItemScreen) and app.screen.query(TextArea), "raw item")
        assert json.loads(app.screen.query_one(TextArea).text) == it.user_message("question 7")


async def test_entries_beyond_the_limit_are_frozen_as_they_commit(tmp_path):
    from rivulet.app.handlers.commits import FLOOD_WIDGETS
    from rivulet.core.turn import bus as b
    from rivulet.widgets.entries import TranscriptEntry
    from rivulet.widgets.frozen_entries import KEEP_ENTRIES, FrozenEntries

    app = RivuletApp(settings(), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 40)) as pilot:
        for n in range(KEEP_ENTRIES + 25):  # one batch: only its newest few become widgets
            app.bus.publish(b.ItemCompleted(message(f"m{n}", f"answer {n}"), f"m{n}"))
        await until(pilot, lambda: app._transcript.query(FrozenEntries) and
                    sum(1 for _ in app._transcript.query(TranscriptEntry)) + len(app._transcript.query_one(FrozenEntries).entries)
                    == KEEP_ENTRIES + 25, "every entry shown, old ones frozen")
        widgets = list(app._transcript.query(TranscriptEntry))
        assert len(widgets) == FLOOD_WIDGETS  # a flood: only the newest is mounted
        frozen = app._transcript.query_one(FrozenEntries)
        # In order: the frozen block holds the oldest, the widgets the newest.
        assert [k for k, _, _ in frozen.entries] + [w.item_id for w in widgets] == \
            [f"m{n}" for n in range(KEEP_ENTRIES + 25)]
