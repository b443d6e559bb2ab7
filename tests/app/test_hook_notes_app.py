"""Hooks in the chat: a hook's output is a dim note in the transcript, taken as plain
text (never markup), and session_start/session_end run with the app."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until
from textual.widgets import Static

from rivulet.app.tui import RivuletApp
from rivulet.core.tools.router import ToolSettings


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


async def test_a_hook_note_is_shown_dim_and_as_plain_text(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    hooks = [{"event": "session_start", "command": ["sh", "-c", "echo up > started"]},
             {"event": "turn_end", "command": ["printf", "[bold]done[/bold] \\033[31mred"]},
             {"event": "session_end", "command": ["sh", "-c", "echo down > ended"]}]
    s = settings(model="gpt-5.1-codex", hooks=hooks, sandbox="off")
    server = GatedServer([created(), *message_events("m1", "Hi."), completed([message("m1", "Hi.")])])
    app = RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=ws), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: (ws / "started").exists(), "the session_start hook")
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: app.query(".hook-note"), "the hook's note")
        note = app.query_one(".hook-note", Static)
        shown = str(note.render())
        assert "hook turn_end" in shown and "[bold]done[/bold]" in shown  # not parsed as markup
        assert "\x1b" not in shown  # the escape made visible, not sent to the terminal
        assert "dim" in str(note.content.style)
    assert (ws / "ended").read_text() == "down\n"
