"""The status line's model, effort and context left, against the demo server (a real
local HTTP server that lists its models with llama.cpp-style windows)."""

from __future__ import annotations

import pytest
from helpers.tui import until

from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.status import StatusLine

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def status_text(app) -> str:
    return str(app.query_one(StatusLine).render())


async def test_window_from_the_server_and_context_left_after_a_turn(demo):
    s = Settings(base_url=demo.base_url, model="rivulet-demo")
    app = RivuletApp(s, SseTransport(s), demo=True, remember_theme=False)
    async with app.run_test(size=(110, 40)) as pilot:
        status = app.query_one(StatusLine)
        await until(pilot, lambda: status.window == 32_768, "the window the server reports")
        assert "context left" not in status_text(app)  # nothing sent yet
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: status.usage is not None and status.state == "idle", "the turn")
        left = 100 * (32_768 - status.usage["total_tokens"]) // 32_768
        assert f"{left}% context left" in status_text(app)
        composer = app.query_one(Composer)
        composer.load_text("/model")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the model picker")
        await pilot.press("down", "enter")
        await until(pilot, lambda: status.model == "rivulet-demo-mini", "the switch")
        assert status.window == 8_192
        left = 100 * (8_192 - status.usage["total_tokens"]) // 8_192
        assert "rivulet-demo-mini • " in status_text(app) and f"{left}% context left" in status_text(app)


async def test_the_context_window_setting_wins_over_the_server(demo):
    s = Settings(base_url=demo.base_url, model="rivulet-demo", context_window=1000, reasoning_effort="low")
    app = RivuletApp(s, SseTransport(s), demo=True, remember_theme=False)
    async with app.run_test(size=(110, 40)) as pilot:
        status = app.query_one(StatusLine)
        assert status.window == 1000 and status.effort == "low"
        assert "rivulet-demo low" in status_text(app)
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: status.usage is not None and status.state == "idle", "the turn")
        assert status.window == 1000
        used = status.usage["total_tokens"]
        assert f"{max(0, 100 * (1000 - used) // 1000)}% context left" in status_text(app)
