"""`rivulet resume` starts as a fresh chat does (issue 36.9): the first frame and the
composer come before the session file is read (the read, the history and the
transcript's records are built in the boot thread), and what the UI thread then does
for the transcript is a screenful's work, however long the session."""

from __future__ import annotations

import os
import threading

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.tui import GatedServer, until

from rivulet.app import launch
from rivulet.app.boot import Ready
from rivulet.app.cli import build_parser
from rivulet.app.plain import choose
from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.config_sources import Peek
from rivulet.core.store import session as session_file
from rivulet.core.store.session import Session, SessionMeta, SessionWriter
from rivulet.core.tools.router import tool_settings
from rivulet.core.turn.history import History
from rivulet.widgets.composer import Composer


def screen_text(app: RivuletApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def long_session(turns: int) -> Session:
    """`turns` turns, each a question, a shell call, its output and an answer."""
    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n:04d}"), key=f"user-{n + 1}")
        call = {"type": "function_call", "call_id": f"c{n}", "name": "shell", "arguments": '{"command": ["true"]}'}
        history.append(call, f"req-{n + 1}", f"c{n}")
        history.append({"type": "function_call_output", "call_id": f"c{n}", "output": f"output {n:04d}"},
                       None, f"out-{n}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"Answer {n:04d}."}]}, f"req-{n + 1}", f"m{n}")
    return Session(SessionMeta("long", 0, "/", "m", "u"), history)


class Inspections:
    """Counts the items the UI thread asks `core.items` about (call or output, call id):
    what pairing each output with its call costs, entry by entry."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ui = 0
        for name in ("call_id", "is_call", "is_output"):
            real = getattr(it, name)

            def spy(item, real=real):
                if threading.current_thread() is threading.main_thread():
                    self.ui += 1
                return real(item)

            monkeypatch.setattr(it, name, spy)


def booted_with(tmp_path, session: Session, gate: threading.Event | None = None, demo: bool = False) -> RivuletApp:
    def boot() -> Ready:
        if gate is not None:
            assert gate.wait(30)
        s = settings(workspace=str(tmp_path), shell_tool=False, save_sessions=False)
        return Ready(s, GatedServer([]).transport(), tool_settings(s), session=session)

    app = RivuletApp.booting(Peek(model="m"), boot, demo=demo)
    app.remember_theme = False
    return app


async def test_a_resumed_session_costs_the_ui_thread_a_screen_not_its_length(tmp_path, monkeypatch):
    session = long_session(1500)  # 6,000 entries
    spy = Inspections(monkeypatch)
    app = booted_with(tmp_path, session)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Answer 1499." in screen_text(app), "the last answer on screen")
        await pilot.press("x")
        await until(pilot, lambda: app.query_one(Composer).text == "x", "the key in the composer")
        # main: ~33,000 (each of the 6,000 entries asked about several times on the UI thread)
        assert spy.ui <= 200, spy.ui
        frozen = app._transcript.frozen
        assert frozen is not None and frozen.rendered <= 2 * 30  # lines for what can be seen
        # Every entry is there, each output with its call (3 shown a turn: the output joins it).
        shown = [*frozen.entries]
        assert len(shown) + len(app._transcript.query("TranscriptEntry")) == 3 * 1500
        assert shown[1] == ("c0", session.history.entries[1].item, session.history.entries[2].item)
        # A late output still finds its frozen call.
        assert frozen.has_call("c3") and not frozen.has_call("c-none")
        # Find reaches the oldest turn, and an old call's output.
        await pilot.press("ctrl+f", *"output 0000")
        await until(pilot, lambda: "output 0000" in screen_text(app), "the oldest output found")


async def test_a_message_sent_while_a_resume_starts_comes_after_the_resumed_transcript(tmp_path):
    gate = threading.Event()
    app = booted_with(tmp_path, long_session(300), gate)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"new one")
        await until(pilot, lambda: app.query_one(Composer).text == "new one", "typed while starting")
        await pilot.press("enter")
        gate.set()
        await until(pilot, lambda: app.conversation is not None and app.conversation.turns == 301, "the turn")

        def users() -> list[str]:  # the user messages drawn as entries, in order
            return [str(e.item) for e in app._transcript.query("TranscriptEntry") if e.item.get("role") == "user"]

        # The turn's user message is drawn by the bridge's next batch: waited for, not assumed.
        await until(pilot, lambda: any("new one" in u for u in users()), "the new message drawn")
        frozen = app._transcript.frozen
        assert frozen is not None
        assert "new one" in users()[-1]  # after every resumed user message
        assert frozen.entries[0][0] == "user-1"


async def test_a_demo_chat_resumed_shows_the_session_not_the_demos_welcome(tmp_path):
    app = booted_with(tmp_path, long_session(3), demo=True)  # no key and no URL: the demo server
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Answer 0002." in screen_text(app), "the last answer on screen")
        await until(pilot, lambda: not app._transcript.query("#welcome"), "the welcome gone")


@pytest.fixture
def saved(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    monkeypatch.setattr(choose, "wants_plain", lambda args: False)  # the full screen, as on a terminal
    writer, meta = SessionWriter.create(model="m", base_url="u", cwd=os.getcwd(), directory=tmp_path / "sessions")
    History(observers=[writer.observe]).append(it.user_message("hi"), key="user-1")
    writer.close()
    return meta


def test_resume_draws_its_first_frame_before_the_session_file_is_read(saved, monkeypatch):
    read: list[object] = []
    real = session_file.load_session
    monkeypatch.setattr(session_file, "load_session", lambda path: read.append(path) or real(path))
    started: dict[str, object] = {}

    def run(app: RivuletApp) -> None:  # in place of the app: what it had when it would draw
        started.update(read=list(read), booting=app.settings is None)

    monkeypatch.setattr(RivuletApp, "run", run)
    args = build_parser().parse_args(["resume", saved.id, "--base-url", "http://127.0.0.1:9/v1"])
    assert launch.run(args) == 0
    assert started == {"read": [], "booting": True}  # main: read, and the settings validated, first


def test_resume_of_an_unknown_id_is_one_line_before_anything_is_drawn(saved, monkeypatch, capsys):
    monkeypatch.setattr(RivuletApp, "run", lambda app: pytest.fail("drawn"))
    args = build_parser().parse_args(["resume", "no-such-id", "--base-url", "http://127.0.0.1:9/v1"])
    assert launch.run(args) == 1
    err = capsys.readouterr().err
    assert "no session 'no-such-id'" in err and err.count("\n") == 1
