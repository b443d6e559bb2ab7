"""`rivulet replay` of recorded tool-call streams (issue 23, part 7): the calls show
as recorded, none runs, and the replay ends where the recording does, cleanly."""

from __future__ import annotations

import pytest
from conftest import REAL, empty_config
from helpers.tui import until

from rivulet.app.replay import replay_app
from rivulet.core.turn.replay_tools import NOT_RUN, RECORDING_ENDS
from rivulet.widgets.entries import ErrorEntry, ToolCallEntry
from rivulet.widgets.status import StatusLine


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


async def _replay(path):
    app = replay_app(path, speed=0)
    app.remember_theme = False
    async with app.run_test(size=(110, 40)) as pilot:
        status = app.query_one(StatusLine)
        await until(pilot, lambda: app.conversation and app.conversation.turns and status.state == "idle"
                    and status.note, "the end of the replay")
        await pilot.pause()
        calls = [(c.item.get("name"), c.item.get("arguments"), c.output) for c in app.query(ToolCallEntry)]
        errors = [e.message for e in app.query(ErrorEntry)]
        note = status.note
        history = [i.get("type") for i in app.conversation.history.items]
    return calls, errors, note, history, app.transport


async def test_a_recorded_call_shows_as_recorded_and_the_replay_ends_there():
    calls, errors, note, history, transport = await _replay(
        REAL / "llamacpp/llamacpp_text_then_shell_call.sse")
    assert errors == []
    assert [(name, args) for name, args, _ in calls] == [("shell", '{"command": "ls"}')]
    assert calls[0][2]["output"] == NOT_RUN  # not run, and not "tool 'shell' is not available"
    assert note == f"Stopped: {RECORDING_ENDS}"
    assert "Failed" not in note
    assert history == ["message", "message", "function_call", "function_call_output"]
    assert transport.played == 1  # no follow-up was asked of a recording that has none


async def test_a_recorded_multi_step_run_plays_every_response():
    calls, errors, note, history, transport = await _replay(
        REAL / "vercel-ai/openai-reasoning-encrypted-content.1.jsonl")
    assert errors == [] and len(transport.recordings) == 4 and transport.played == 4
    assert len(calls) == 3 and all(output["output"] == NOT_RUN for _, _, output in calls)
    assert note.startswith("Done in") and history[-1] == "message"
