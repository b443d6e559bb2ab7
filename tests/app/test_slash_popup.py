"""The `/` completion popup in the composer, driven through Pilot: it opens on `/`,
narrows fuzzily, is driven by keys, and Esc closes it without touching anything else."""

from __future__ import annotations

import pytest
from helpers.tui import GatedServer, make_app, until

from rivulet.widgets.completion import CompletionPopup
from rivulet.widgets.composer import Composer
from rivulet.widgets.status import StatusLine

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def labels(app) -> list[str]:
    return [e.label.split()[0] for e in app.query_one(CompletionPopup).entries]


async def test_slash_opens_the_list_and_typing_narrows_it():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        popup = app.query_one(CompletionPopup)
        assert not popup.display
        await pilot.press("/")
        await until(pilot, lambda: popup.display, "the popup")
        assert labels(app)[:3] == ["/model", "/effort", "/new"]
        assert "/quit" in labels(app) and "/help" in labels(app)
        await pilot.press("m", "o")
        await until(pilot, lambda: labels(app)[:1] == ["/model"], "the list narrowed to /model")
        assert "/new" not in labels(app)


async def test_esc_closes_the_popup_and_keeps_the_text():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        popup = app.query_one(CompletionPopup)
        await pilot.press("/", "h", "e")
        await until(pilot, lambda: popup.display, "the popup")
        await pilot.press("escape")
        await until(pilot, lambda: not popup.display, "the popup closed")
        assert app.query_one(Composer).text == "/he"
        await pilot.press("l")  # the text changed: the popup comes back
        await until(pilot, lambda: popup.display, "the popup again")


async def test_down_then_enter_runs_the_highlighted_command():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        popup = app.query_one(CompletionPopup)
        await pilot.press("/")
        await until(pilot, lambda: popup.display, "the popup")
        await pilot.press("down")  # /effort
        assert popup.current is not None and popup.current.value == "/effort "
        await pilot.press("enter")
        from rivulet.widgets.choice import ChoiceScreen

        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the effort picker")
        await pilot.press("up", "up", "enter")  # from the current one (default) up: high, medium
        await until(pilot, lambda: app.settings.reasoning_effort == "medium", "effort medium")
        assert app.query_one(StatusLine).effort == "medium"
        assert app.query_one(Composer).text == ""


async def test_tab_completes_without_running():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("/", "t", "h", "e")
        popup = app.query_one(CompletionPopup)
        await until(pilot, lambda: popup.display, "the popup")
        await pilot.press("tab")
        await until(pilot, lambda: app.query_one(Composer).text == "/theme ", "the completed text")
        assert not popup.display
        assert app.focused is app.query_one(Composer)


async def test_up_through_history_is_not_caught_by_a_recalled_command():
    server = GatedServer([])
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        composer = app.query_one(Composer)
        composer.prompts = ["first prompt", "/status", "last prompt"]
        await pilot.press("up", "up")
        await until(pilot, lambda: composer.text == "/status", "the recalled command")
        await pilot.pause()
        assert not app.query_one(CompletionPopup).display
        await pilot.press("up")
        await until(pilot, lambda: composer.text == "first prompt", "further back in history")


async def test_a_click_on_an_entry_puts_it_in_the_composer():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        popup = app.query_one(CompletionPopup)
        await pilot.press("/", "s", "t", "a")
        await until(pilot, lambda: popup.display, "the popup")
        assert labels(app)[0] == "/status"
        await pilot.click(CompletionPopup, offset=(4, 1))
        await until(pilot, lambda: app.query_one(Composer).text == "/status", "the picked command")
        assert not popup.display and app.focused is app.query_one(Composer)
