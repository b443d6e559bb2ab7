"""The composer's cursor blinks for a while after the last key, then stays lit: an idle
chat draws nothing. A key starts the blinking again."""

from __future__ import annotations

import pytest
from helpers.tui import GatedServer, make_app, until

from rivulet.widgets import composer as composer_module
from rivulet.widgets.composer import Composer

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


async def test_the_cursor_stops_blinking_lit_and_a_key_restarts_it(monkeypatch):
    monkeypatch.setattr(composer_module, "BLINK_FOR", 0.0)
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        composer = app.query_one(Composer)
        blinking = composer.blink_timer._active.is_set  # Textual keeps "not paused" in an Event
        await until(pilot, lambda: not blinking(), "the blink to stop")
        assert composer._cursor_visible  # stopped lit, never hidden
        monkeypatch.setattr(composer_module, "BLINK_FOR", 60.0)
        await pilot.press("a")
        assert blinking() and composer.text == "a"
