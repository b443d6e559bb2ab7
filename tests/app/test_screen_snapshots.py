"""Snapshots of issue 25's screen parts (pytest-textual-snapshot; update with
--snapshot-update, then look at the SVGs): code blocks that wrap, live and committed,
at 80 and 120 columns."""

from __future__ import annotations

import json

import pytest
from helpers.config_files import empty_config
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.widgets.composer import Composer
from rivulet.widgets.live import LiveMessage

LONG = "result = compute(" + ", ".join(f"argument_{n}" for n in range(16)) + ")  # the end"
CODE_ANSWER = f"Here is the call:\n\n```python\n{LONG}\nprint(result)\n```\n\nAnd a closing line.\n"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch, still_screens):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def code_response() -> list[str]:
    return [created(), *message_events("msg_1", CODE_ANSWER, 0, chunks=8),
            completed([message("msg_1", CODE_ANSWER)], usage={"input_tokens": 900, "output_tokens": 100,
                                                              "total_tokens": 1000})]


@pytest.mark.parametrize("width", [80, 120])
def test_code_block_wraps_when_committed(snap_compare, width):
    server = GatedServer(code_response())
    app = make_app(server)

    async def run_before(pilot):
        await pilot.press(*"show me", "enter")
        await until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, "the answer")
        await until(pilot, lambda: not app.live, "the commit")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(width, 24), run_before=run_before)


@pytest.mark.parametrize("width", [80, 120])
def test_code_block_wraps_while_it_streams(snap_compare, width):
    payloads = code_response()
    # The gate: after the delta that closes the fence (the closing line not yet sent).
    closed = CODE_ANSWER.index("```\n\n") + 4
    deltas = [n for n, p in enumerate(payloads) if json.loads(p)["type"] == "response.output_text.delta"]
    sent_text = ""
    for gate in deltas:
        sent_text += json.loads(payloads[gate])["delta"]
        if len(sent_text) >= closed:
            gate += 1
            break
    server = GatedServer(payloads, gate_at={0: gate})
    app = make_app(server)
    sent = [json.loads(p) for p in payloads[:gate]]
    expected = sum(len(e["delta"]) for e in sent if e["type"] == "response.output_text.delta")

    def all_shown() -> bool:
        return any(isinstance(p, LiveMessage) and p.shown == expected and not p._pending for p in app.live.values())

    async def run_before(pilot):
        await pilot.press(*"show me", "enter")
        await server.reached.wait()
        await until(pilot, all_shown, "the streamed text on screen")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(width, 24), run_before=run_before)


LONG_NOTE = "Interrupted before anything was committed: your message is back in the composer"


@pytest.mark.parametrize("width", [80, 120])
def test_status_line_priorities(snap_compare, width):
    """After a turn, with the sandbox, an effort, tokens and context left to show, and a
    note longer than the line: the note is cut at a word and said whole in the transcript."""
    server = GatedServer(code_response())
    app = make_app(server)

    async def run_before(pilot):
        await pilot.press(*"show me", "enter")
        await until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, "the answer")
        status = app._status
        status.sandbox, status.effort, status.window = "sandbox workspace-write", "high", 10_000
        status.note = LONG_NOTE
        status.refresh_line()
        await until(pilot, lambda: any(LONG_NOTE in str(n.render()) for n in app.query(".command-note")),
                    "the whole note in the transcript")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(width, 24), run_before=run_before)


def test_a_toast_at_80x24_is_clear_of_the_composer_and_status_line(snap_compare):
    server = GatedServer(code_response())
    app = make_app(server)

    async def run_before(pilot):
        await pilot.press(*"show me", "enter")
        await until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, "the answer")
        app.query_one(Composer).load_text("a draft the toast must not cover")
        app.notify("Copied the last answer (412 characters) to the clipboard", timeout=60)
        app.notify("Copied the last answer (412 characters) to the clipboard", timeout=60)  # once on screen
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
