"""Toasts (issue 25): never the same one twice at once, and /status says what the status
line says about the context."""

from __future__ import annotations

import re

import pytest
from helpers.config_files import empty_config
from helpers.tui import until

from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.widgets.composer import Composer
from rivulet.widgets.status import StatusLine


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_the_same_toast_is_not_shown_twice(demo):
    s = Settings(base_url=demo.base_url, model="rivulet-demo")
    app = RivuletApp(s, SseTransport(s), demo=True, remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify("Keymap: ctrl+y is bound twice")
        app.notify("Keymap: ctrl+y is bound twice")
        app.notify("Something else")
        await pilot.pause()
        assert toasts(app).count("Keymap: ctrl+y is bound twice") == 1
        assert "Something else" in toasts(app)


async def test_status_says_the_same_context_left_as_the_status_line(demo):
    s = Settings(base_url=demo.base_url, model="rivulet-demo")
    app = RivuletApp(s, SseTransport(s), demo=True, remember_theme=False)
    async with app.run_test(size=(120, 40)) as pilot:
        status = app.query_one(StatusLine)
        await until(pilot, lambda: status.window is not None, "the window")
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: status.usage is not None and status.state == "idle", "the turn")
        line = re.search(r"(\d+)% context left", str(status.render()))
        assert line is not None
        app.query_one(Composer).load_text("/status")
        await pilot.press("enter")
        await until(pilot, lambda: app.query(".command-note"), "the /status note")
        note = str(app.query(".command-note").last().render())
        assert "nothing sent yet" not in note
        assert f"{line.group(1)}% left" in note
