"""Server text that the slash commands show: model names from `GET /models` in the
picker, the note, the status line and the banner; and what a user typed after an
unknown `/word`. All of it drawn as plain, sanitised text, never markup."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from hostile import HOSTILE, MARKUP, assert_clean, screen_output

from rivulet.app.tui import RivuletApp
from rivulet.core.protocol.models import ModelInfo, ModelList
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.status import StatusLine

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


async def test_a_hostile_model_name_is_plain_text_everywhere_it_shows(monkeypatch):
    evil = "gpt" + HOSTILE

    async def listing(settings, *a, **kw):
        return ModelList([ModelInfo("gpt-5.1-codex"), ModelInfo(evil, 1000)], "server")

    monkeypatch.setattr("rivulet.app.commands.model.list_models", listing)
    app = RivuletApp(settings(model="gpt-5.1-codex"), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(160, 40)) as pilot:
        composer = app.query_one(Composer)
        composer.load_text("/model")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the picker")
        await pilot.pause()
        raw, plain = screen_output(app)
        assert_clean(raw, "the model picker")
        assert MARKUP[0] in plain  # shown as typed, not acted on
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.settings.model == evil, "the switch")
        await pilot.pause()
        raw, plain = screen_output(app)
        assert_clean(raw, "the note, status line and banner")
        assert MARKUP[0] in str(app.query_one(StatusLine).render())


async def test_an_unknown_command_with_markup_is_named_plainly():
    server = GatedServer([])
    app = RivuletApp(settings(), server.transport(), remember_theme=False)
    async with app.run_test(size=(160, 40)) as pilot:
        composer = app.query_one(Composer)
        composer.load_text("/[b]x\x1b]2;T\x07")
        await pilot.press("enter")
        await until(pilot, lambda: app._notifications, "the refusal")
        # given back to be fixed, its controls shown as codes (the composer never draws them raw)
        assert composer.text == "/[b]x␛]2;T␇"
        toast = list(app._notifications)[-1]
        assert toast.message.startswith("Unknown command /[b]x") and not toast.markup
        assert_clean(toast.message, "the refusal toast")
        assert server.requests == []
