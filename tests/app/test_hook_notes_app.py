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


@pytest.mark.pilot
async def test_a_hook_note_stays_in_its_turn_when_the_turn_is_frozen(tmp_path):
    """Old entries are frozen into lines: a hook's note goes with its turn's entries
    (it stayed a widget below the frozen block, under later turns)."""
    from helpers.tui import follow_up_payloads, settled

    ws = tmp_path / "ws"
    ws.mkdir()
    hooks = [{"event": "turn_start", "command": ["sh", "-c", 'echo "note of turn $(ls | wc -l)"; touch t$(ls | wc -l)']}]
    s = settings(model="gpt-5.1-codex", hooks=hooks, sandbox="off", hooks_sandbox="off")
    server = GatedServer(*[follow_up_payloads(f"Answer {n}.", f"r{n}") for n in range(1, 6)])
    app = RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=ws), remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for turn in range(1, 6):
            await pilot.press(*f"question {turn}", "enter")
            await until(pilot, lambda turn=turn: app.conversation.turns == turn and settled(app), f"turn {turn}")
        frozen = app._transcript.frozen
        assert frozen is not None and frozen.entries, "the first turns are frozen"
        texts = [str(i.get("text") or "") or (i.get("content") or [{}])[0].get("text", "")
                 for _, i, _ in frozen.entries]
        second = next(n for n, t in enumerate(texts) if "note of turn 1" in t)  # turn 2's, at its start
        assert texts.index("question 1") < second < texts.index("question 2"), texts
