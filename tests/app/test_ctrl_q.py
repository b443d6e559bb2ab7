"""Issue 38.4: Ctrl+Q threw a running turn away without a word. Idle it still quits at
once; while a turn runs or an approval question waits it asks, and a second press within
the window quits (app/tui_ctrl_q.py). The clock is a fake the test moves."""

from __future__ import annotations

import pytest
from helpers.calls import PATCH, custom_call, custom_call_events
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.app.tui import RivuletApp
from rivulet.app.tui_ctrl_q import ASK_WINDOW, ask_text
from rivulet.core.tools.router import ToolSettings
from rivulet.widgets.dialogs import ApprovalScreen

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answer(text: str) -> list[str]:
    return [created(), *message_events("m1", text), completed([message("m1", text)])]


def asked(app: RivuletApp, key: str = "ctrl+q") -> bool:
    return any(n.message == ask_text(key) for n in app._notifications)


async def test_ctrl_q_quits_at_once_when_idle():
    app = make_app(GatedServer(answer("ok")))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the quit")
    assert not asked(app)


async def test_ctrl_q_asks_while_a_turn_runs_and_a_second_press_in_the_window_quits():
    server = GatedServer(answer("a long answer"), gate_at={0: 2})
    app = make_app(server)
    clock = app.ctrl_q.clock = Clock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"hello", "enter")
        await server.reached.wait()
        await pilot.press("ctrl+q")
        await until(pilot, lambda: asked(app), "the question")
        assert app.is_running and app.turn_worker.is_running  # nothing thrown away yet
        clock.now += ASK_WINDOW + 0.5  # too late: this press asks again (the same toast, still up)
        await pilot.press("ctrl+q")
        assert app.is_running and app.turn_worker.is_running
        clock.now += ASK_WINDOW / 2  # within the window of the press before
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the quit")
        server.release()


async def test_ctrl_q_asks_over_an_approval_question_and_names_a_remapped_key(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")  # the file the patch changes
    first = [created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
             completed([custom_call("ct_1", "call_p", "apply_patch", PATCH)])]
    server = GatedServer(first, answer("never"))
    s = settings(model="gpt-5.1-codex", approval="ask", keymap={"app.quit": "ctrl+x"})
    app = RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=tmp_path), remember_theme=False)
    app.ctrl_q.clock = Clock()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"patch please", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        await pilot.press("ctrl+x")
        await until(pilot, lambda: asked(app, "ctrl+x"), "the question, with the user's key")
        assert app.is_running and isinstance(app.screen, ApprovalScreen)  # the dialog is not answered
        await pilot.press("ctrl+x")
        await until(pilot, lambda: not app.is_running, "the quit")
