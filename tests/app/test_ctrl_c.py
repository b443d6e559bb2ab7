"""Ctrl+C (app/ctrl_c.py) through Pilot: copy, close, interrupt, clear with the draft kept,
and quit on a second press within the window. The clock is a fake the test moves."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.app.tui_ctrl_c import QUIT_HINT, QUIT_WINDOW
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.status import StatusLine


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def answer(text: str) -> list[str]:
    return [created(), *message_events("m", text), completed([message("m", text)])]


def app_with_clock(server: GatedServer):
    app = make_app(server)
    clock = Clock()
    app.ctrl_c.clock = clock
    return app, clock


async def test_ctrl_c_clears_the_draft_and_up_brings_it_back():
    app, _ = app_with_clock(GatedServer(answer("ok")))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await pilot.press(*"a long draft")
        await until(pilot, lambda: composer.text == "a long draft", "the draft typed")
        await pilot.press("ctrl+c")
        assert composer.text == ""
        assert app.is_running  # a cleared draft is not a first quit press
        await pilot.press("up")
        assert composer.text == "a long draft"


async def test_ctrl_c_on_an_empty_composer_asks_then_quits_within_the_window():
    app, clock = app_with_clock(GatedServer(answer("ok")))
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.query_one(StatusLine)
        await pilot.press("ctrl+c")
        assert status.note == QUIT_HINT and QUIT_HINT in str(status.render())
        assert app.is_running
        clock.now += QUIT_WINDOW + 0.5  # too late: this press asks again
        await pilot.press("ctrl+c")
        assert app.is_running and status.note == QUIT_HINT
        clock.now += QUIT_WINDOW / 2
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the app to quit")
    assert app.return_code in (None, 0)


async def test_a_key_between_the_presses_does_not_quit():
    app, _ = app_with_clock(GatedServer(answer("ok")))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        await pilot.press("ctrl+c", "x")
        await until(pilot, lambda: composer.text == "x", "x typed")
        await pilot.press("ctrl+c")  # clears the x: a clear, not a second quit press
        assert app.is_running and composer.text == ""
        await pilot.press("ctrl+c")  # the first of a new pair
        assert app.is_running


async def test_ctrl_c_interrupts_a_running_turn_as_escape_does():
    server = GatedServer([created(), *message_events("m", "never"), completed([message("m", "never")])],
                         gate_at={0: 1})
    app, _ = app_with_clock(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"unsent words", "enter")
        await server.reached.wait()
        await until(pilot, lambda: app.turn_worker is not None and app.turn_worker.is_running, "the turn")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn to stop")
        assert app.query_one(Composer).text == "unsent words"  # as after Esc: nothing was committed
        assert app.is_running


async def test_ctrl_c_closes_a_picker_and_copies_a_composer_selection(monkeypatch):
    app, _ = app_with_clock(GatedServer(answer("ok")))
    copied: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
        composer = app.query_one(Composer)
        await pilot.press(*"/effort", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the effort picker")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen), "the picker to close")
        assert app.is_running
        await pilot.press(*"keep me")
        await until(pilot, lambda: composer.text == "keep me", "typed into the composer")
        composer.select_all()
        await pilot.press("ctrl+c")
        assert copied == ["keep me"] and composer.text == "keep me"  # a selection is copied, not cleared


async def test_the_quit_hint_lasts_its_window_on_the_same_clock_as_the_second_press():
    """The hint's timer only wakes it: a loaded machine's timer firing before the window is
    over (on the clock the second press is measured on) must not hide a hint still in force."""
    app, clock = app_with_clock(GatedServer(answer("ok")))
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.query_one(StatusLine)
        await pilot.press("ctrl+c")
        app.ctrl_c._hint_expired()  # the timer, early on the window's clock
        assert status.note == QUIT_HINT
        clock.now += QUIT_WINDOW + 0.1
        app.ctrl_c._hint_expired()  # past the window: the hint goes
        assert status.note != QUIT_HINT
        await pilot.press("ctrl+c")  # and a press now asks again
        assert app.is_running and status.note == QUIT_HINT
