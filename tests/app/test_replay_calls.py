"""`rivulet replay` of recorded tool-call streams (issue 23, part 7): the calls show
as recorded, none runs, and the replay ends where the recording does, cleanly."""

from __future__ import annotations

import pytest
from helpers.calls import fn_call, fn_call_response
from helpers.paths import REAL
from helpers.tui import shown_entries, until

from rivulet.app.replay import replay_app
from rivulet.core import items as it
from rivulet.core.turn.replay_tools import NOT_RUN, RECORDING_ENDS
from rivulet.widgets.status import StatusLine

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


async def _replay(path):
    app = replay_app(path, speed=0)
    app.remember_theme = False
    async with app.run_test(size=(110, 40)) as pilot:
        status = app.query_one(StatusLine)
        await until(pilot, lambda: app.conversation and app.conversation.turns and status.state == "idle"
                    and status.note, "the end of the replay")
        await pilot.pause()
        # Every shown entry, widget or frozen line (older ones are frozen as a turn goes on).
        shown = shown_entries(app)
        calls = [(item.get("name"), item.get("arguments"), output) for _, item, output in shown
                 if item.get("type") in it.CALL_OUTPUT_TYPES]  # what a ToolCallEntry shows
        errors = [item.get("message") for _, item, _ in shown if item.get("type") == "error"]
        note = status.note
        assert status.window is None  # a file's name is no model: no "context left"
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


async def test_every_call_of_the_last_response_shows_as_recorded(tmp_path):
    recording = tmp_path / "two_calls.sse"
    recording.write_bytes(fn_call_response("r1", fn_call("fc1", "call_1", "date", {}),
                                           fn_call("fc2", "call_2", "uptime", {"pretty": True})))
    calls, errors, note, history, transport = await _replay(recording)
    assert errors == [] and note == f"Stopped: {RECORDING_ENDS}" and transport.played == 1
    assert [(name, output["output"]) for name, _, output in calls] == [("date", NOT_RUN), ("uptime", NOT_RUN)]
    assert history[-4:] == ["function_call", "function_call", "function_call_output", "function_call_output"]
