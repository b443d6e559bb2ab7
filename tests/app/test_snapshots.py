"""Snapshot tests of the main screen (pytest-textual-snapshot). Update with --snapshot-update."""

from __future__ import annotations

import json

import pytest
from helpers.streams import call, call_events, completed, created, message, message_events, reasoning, reasoning_events
from helpers.tui import GatedServer, make_app, settled, until

from rivulet.widgets.live import LiveMessage

SIZE = (100, 36)
ANSWER = ("Here is the plan:\n\n1. Read the **stream**\n2. Commit on done\n\n```python\nprint('hello')\n```\n\n"
          "And a closing line.\n")


pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


@pytest.fixture(autouse=True)
def _still(still_screens):
    """Elapsed seconds, the turn's speed and the cursor's blink held still (tests/conftest.py)."""


def response():
    return [created(), *reasoning_events("rs_1", "**Reading the question**\n\nShort plan.", 0),
            *message_events("msg_1", ANSWER, 1, chunks=12),
            completed([reasoning("rs_1", "**Reading the question**\n\nShort plan."), message("msg_1", ANSWER)],
                      usage={"input_tokens": 1200, "output_tokens": 300, "total_tokens": 1500})]


def test_idle_demo(snap_compare):
    app = make_app(GatedServer(response()), demo=True)
    assert snap_compare(app, terminal_size=SIZE)


def test_idle_light_theme(snap_compare):
    app = make_app(GatedServer(response()), demo=True)

    async def run_before(pilot):
        app.theme = "rivulet-light"
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_mid_stream(snap_compare):
    payloads = response()
    gate = 1 + len(reasoning_events("rs_1", "x", 0)) + 2 + 5  # created, reasoning, message added, 5 deltas
    server = GatedServer(payloads, gate_at={0: gate})
    app = make_app(server)
    sent = [json.loads(p) for p in payloads[:gate]]
    expected = sum(len(e["delta"]) for e in sent if e["type"] == "response.output_text.delta")

    def all_shown() -> bool:
        # Every delta sent before the gate is on screen, the partial line included.
        return any(isinstance(p, LiveMessage) and p.shown == expected and not p._pending for p in app.live.values())

    async def run_before(pilot):
        await pilot.press(*"How does it work?", "enter")
        await server.reached.wait()
        await until(pilot, all_shown, "the streamed text to be on screen")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_after_a_tool_call(snap_compare):
    first = [created(), *call_events("fc_1", "call_1", "get_weather", '{"city": "Paris"}', 0),
             completed([call("fc_1", "call_1", "get_weather", '{"city": "Paris"}')])]
    second = [created("r2"), *message_events("m2", "I could not check: the tool is not available.", 0),
              completed([message("m2", "I could not check: the tool is not available.")], "r2")]
    server = GatedServer(first, second)
    app = make_app(server)

    async def run_before(pilot):
        await pilot.press(*"Weather in Paris?", "enter")
        await until(pilot, lambda: len(server.requests) == 2 and settled(app) and not app.live,
                    "the follow-up to finish")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_patch_approval_dialog(snap_compare, tmp_path):
    from helpers.calls import PATCH, custom_call, custom_call_events
    from helpers.tui import follow_up_payloads

    from rivulet.core.tools.router import ToolSettings

    (tmp_path / "notes.md").write_text("old\n")
    first = [created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
             completed([custom_call("ct_1", "call_p", "apply_patch", PATCH)])]
    server = GatedServer(first, follow_up_payloads("Patched."))
    app = make_app(server, tool_settings=ToolSettings(workspace=tmp_path))

    async def run_before(pilot):
        from rivulet.widgets.dialogs import ApprovalScreen

        await pilot.press(*"Patch the notes", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_patch_approval_dialog_at_80x24(snap_compare, tmp_path):
    """The smallest common terminal: the footer's bindings and all four buttons whole."""
    from helpers.calls import PATCH, custom_call, custom_call_events
    from helpers.tui import follow_up_payloads

    from rivulet.core.tools.router import ToolSettings

    (tmp_path / "notes.md").write_text("old\n")
    first = [created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
             completed([custom_call("ct_1", "call_p", "apply_patch", PATCH)])]
    app = make_app(GatedServer(first, follow_up_payloads("Patched.")), tool_settings=ToolSettings(workspace=tmp_path))

    async def run_before(pilot):
        from rivulet.widgets.dialogs import ApprovalScreen

        await pilot.press(*"Patch the notes", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def _recorded_session(tmp_path):
    """A session file with two turns and a tool call, at fixed times and a fixed id."""
    from rivulet.core import items as it
    from rivulet.core.store.session import SessionMeta, SessionWriter, load_session
    from rivulet.core.turn.history import History

    path = tmp_path / "fixed.jsonl"
    writer = SessionWriter(path, SessionMeta("20261202-120000-abcdef", 1796212800.0, "/work", "gpt-5.1-codex",
                                             "http://test.invalid/v1"))
    history = History(observers=[writer.observe])
    t = 1796212800.0
    for n, (item, key, seg) in enumerate([
        (it.user_message("What is in the notes?"), "user-1", None),
        (reasoning("rs_1", "**Reading the notes**\n\nI will look."), "rs_1", "req-1"),
        (call("fc_1", "call_1", "shell", '{"command": "cat notes.md"}'), "fc_1", "req-1"),
        ({"type": "function_call_output", "call_id": "call_1", "output": "Exit code: 0\nOutput:\n- buy milk\n"},
         "call_1:output", None),
        (message("msg_2", "The notes say: **buy milk**."), "msg_2", "req-2"),
        (it.user_message("Thanks!"), "user-2", None),
        (message("msg_3", "You are welcome."), "msg_3", "req-3"),
    ]):
        history.append(item, seg, key, at=t + n * 7)
    writer.close()
    return load_session(path)


def _resumed_app(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")  # the inspector shows local times
    import time as _time

    _time.tzset()
    return make_app(GatedServer([]), session=_recorded_session(tmp_path))


def test_resumed_session(snap_compare, tmp_path, monkeypatch):
    app = _resumed_app(tmp_path, monkeypatch)

    async def run_before(pilot):
        await until(pilot, lambda: len(app._transcript.children) == 6, "the rebuilt transcript")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_history_inspector(snap_compare, tmp_path, monkeypatch):
    from rivulet.widgets.inspector import InspectorScreen

    app = _resumed_app(tmp_path, monkeypatch)

    async def run_before(pilot):
        await until(pilot, lambda: len(app._transcript.children) == 6, "the rebuilt transcript")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
