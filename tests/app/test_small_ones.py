"""Issue 25's small ones: an unknown theme is said, not ignored; a committed H1 is not
centred; /sessions says "1 turn"."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.widgets.entries import AssistantEntry


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def answer(text: str) -> list[str]:
    return [created(), *message_events("m", text), completed([message("m", text)])]


async def test_an_unknown_theme_is_said():
    s = settings(model="gpt-5.1-codex")
    s.theme = "no-such-theme"
    app = RivuletApp(s, GatedServer(answer("ok")).transport(), remember_theme=False)
    said: list[str] = []
    app.notify = lambda message, **kw: said.append(str(message))  # (a toast may expire on a slow machine)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert any("Unknown theme 'no-such-theme'" in m for m in said)
        assert app.theme == "rivulet-dark"


async def test_a_committed_h1_starts_at_the_left():
    server = GatedServer(answer("# Title\n\nBody text.\n"))
    s = settings(model="gpt-5.1-codex")
    app = RivuletApp(s, server.transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: app.query(AssistantEntry), "the answer")
        await pilot.pause()
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        title = next(line for line in lines if "Title" in line)
        body = next(line for line in lines if "Body text." in line)
        assert title.index("Title") == body.index("Body text.")  # not centred: where the text starts
