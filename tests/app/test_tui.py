"""The chat UI driven through Textual's Pilot."""

from __future__ import annotations

import pytest
from helpers.streams import (
    call,
    call_events,
    completed,
    created,
    ev,
    message,
    message_events,
    reasoning,
    reasoning_events,
)
from helpers.tui import GatedServer, make_app, shown_entries, shown_kinds, until

from rivulet.app.demo_server import DemoServer
from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.kinds.calls import output_text
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.tools.builtin import BuiltinTools
from rivulet.core.turn.bus import TurnCompleted
from rivulet.widgets.composer import Composer
from rivulet.widgets.entries import AssistantEntry, ErrorEntry, ReasoningEntry, ToolCallEntry, UserEntry
from rivulet.widgets.live import LiveMessage, LivePane, LiveReasoning
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def entries(app, cls=None):
    from rivulet.widgets.entries import TranscriptEntry

    found = [w for w in app.query_one(Transcript).children if isinstance(w, TranscriptEntry)]
    return [w for w in found if cls is None or isinstance(w, cls)]


def turn_completions(app):
    """TurnCompleted events as the UI handled them (the bus delivers before the UI has)."""
    seen = []
    app.bus.subscribe(lambda e: app.call_later(seen.append, e), TurnCompleted)
    return seen


def two_item_response(text="Streaming **answer**\nsecond line\n"):
    return [created(), *reasoning_events("rs_1", "**Weighing options**\n\nthinking", 0),
            *message_events("msg_1", text, 1, chunks=6),
            completed([reasoning("rs_1", "**Weighing options**\n\nthinking"), message("msg_1", text)])]


async def test_live_pane_during_streaming_history_only_after_item_done():
    payloads = two_item_response()
    gate = len(reasoning_events("rs_1", "x", 0)) + 1 + 4  # reasoning done, message half streamed
    server = GatedServer(payloads, gate_at={0: gate})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"hi", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) and p.shown for p in app.live.values()),
                    "the live message to show text")
        live = next(p for p in app.live.values() if isinstance(p, LiveMessage))
        assert live.shown > 0
        assert [type(e) for e in entries(app)] == [UserEntry, ReasoningEntry]  # reasoning done; message not
        assert [i.get("type") for i in app.conversation.history.items] == ["message", "reasoning"]
        status = app.query_one(StatusLine)
        assert status.state == "working" and status.heading == "Weighing options"
        server.release()
        await until(pilot, lambda: done, "turn completion")
        assert [type(e) for e in entries(app)] == [UserEntry, ReasoningEntry, AssistantEntry]
        assert not app.query(LivePane), [(type(p).__name__, p.item_id, p.classes) for p in app.query(LivePane)]
        assert app.live == {}
        assert entries(app, AssistantEntry)[0].item["content"][0]["text"] == "Streaming **answer**\nsecond line\n"
        assert len(done) == 1 and status.state == "idle"


async def test_several_items_give_several_entries_and_one_turn_completion():
    payloads = [created(), *reasoning_events("rs_1", "r", 0), *message_events("m1", "first", 1),
                *call_events("fc_1", "call_1", "lookup", '{"q": 1}', 2),
                completed([reasoning("rs_1", "r"), message("m1", "first"), call("fc_1", "call_1", "lookup", '{"q": 1}')])]
    follow = [created("r2"), *message_events("m2", "final", 0), completed([message("m2", "final")], "r2")]
    server = GatedServer(payloads, follow)
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: done, "turn completion")
        # Every entry shown, in order: the oldest may be frozen lines rather than widgets.
        assert shown_kinds(app) == ["user", "reasoning", "assistant", "function_call", "assistant"]
        [(_, _, output)] = [e for e in shown_entries(app) if e[1].get("type") == "function_call"]
        assert output is not None and "not available" in output_text(output)
        for tool in entries(app, ToolCallEntry):  # still a widget: it draws that output
            assert "not available" in str(tool.query_one(".tool-output").render())
        assert len(done) == 1 and len(server.requests) == 2


async def test_full_turns_against_the_demo_server():
    demo = DemoServer(delay=0).start()
    try:
        s = Settings(base_url=demo.base_url, model="rivulet-demo")
        app = RivuletApp(s, SseTransport(s), tools=BuiltinTools(), demo=True, remember_theme=False)
        async with app.run_test(size=(100, 50)) as pilot:
            done = turn_completions(app)
            assert "DEMO" in str(app.query_one("#banner").render())
            await pilot.press(*"show me", "enter")
            await until(pilot, lambda: len(done) == 1, "first turn")
            assert [type(e) for e in entries(app)] == [UserEntry, ReasoningEntry, AssistantEntry]
            answer = entries(app, AssistantEntry)[0]
            assert "```python" in answer.item["content"][0]["text"]
            await pilot.press(*"what time is it?", "enter")
            await until(pilot, lambda: len(done) == 2, "second turn")
            kinds = [type(e) for e in entries(app)][3:]
            assert kinds == [UserEntry, ReasoningEntry, ToolCallEntry, AssistantEntry]
            tool = entries(app, ToolCallEntry)[0]
            assert '"iso"' in str(tool.query_one(".tool-output").render())
            assert app.query_one(StatusLine).total_tokens > 0
    finally:
        demo.stop()


async def test_escape_mid_stream_keeps_a_consistent_history():
    payloads = two_item_response()
    gate = len(reasoning_events("rs_1", "x", 0)) + 1 + 4
    server = GatedServer(payloads, [created("r2"), *message_events("m9", "ok"), completed([message("m9", "ok")], "r2")],
                         gate_at={0: gate})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"first", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) for p in app.live.values()), "live message")
        await pilot.press("escape")
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn to stop")
        # The committed reasoning stays, and a note tells the model the turn was cut short.
        history = app.conversation.history.items
        assert [i.get("type") for i in history] == ["message", "reasoning", "message"]
        assert "<turn_aborted>" in history[-1]["content"][0]["text"]
        discarded = app.query(".discarded")
        assert len(discarded) == 1 and isinstance(discarded.first(), LiveMessage)
        assert "committed is kept" in app.query_one(StatusLine).note
        await pilot.press(*"second", "enter")
        await until(pilot, lambda: done, "the next turn")
        sent = server.requests[1]["input"]
        assert [i["type"] for i in sent] == ["message", "reasoning", "message", "message"]
        assert [type(e).__name__ for e in entries(app)] == ["UserEntry", "ReasoningEntry", "NoteEntry", "UserEntry",
                                                            "AssistantEntry"]


async def test_escape_before_anything_was_committed_gives_the_prompt_back():
    server = GatedServer([created(), *message_events("m", "never"), completed([message("m", "never")])],
                         gate_at={0: 1})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"unsent words", "enter")
        await server.reached.wait()
        await pilot.press("escape")
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn to stop")
        assert app.query_one(Composer).text == "unsent words"
        assert len(app.conversation.history) == 0
        await until(pilot, lambda: not entries(app, UserEntry), "the user entry to go")


async def test_retries_show_reconnecting_in_the_status_line():
    server = GatedServer([created(), *message_events("m", "cut")[:2]], two_item_response(), gate_at={1: 5})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        import asyncio

        gate = asyncio.Event()
        waited = []

        async def held_sleep(seconds):
            waited.append(seconds)
            await gate.wait()

        app.conversation._sleep = held_sleep
        await pilot.press(*"x", "enter")
        await until(pilot, lambda: waited, "the retry wait")
        await pilot.pause()
        status = app.query_one(StatusLine)
        assert status.state == "retrying" and "reconnecting 1/4" in str(status.render())
        gate.set()
        await server.reached.wait()
        # The retry is streaming: the status line no longer says it is reconnecting.
        await until(pilot, lambda: app.live and status.state == "working", "the retry to stream")
        assert "reconnecting" not in str(status.render())
        server.release()
        await until(pilot, lambda: done, "turn completion")
        # `done` is another subscriber's: the bridge may still hold the TurnCompleted that
        # removes the cut attempt's pane (a loaded machine showed it), so wait for that too.
        await until(pilot, lambda: not app.query(".discarded"), "the cut attempt's pane to go")
        assert status.retry is None


async def test_a_failed_turn_shows_an_error_and_the_ui_stays_usable():
    server = GatedServer([ev("response.created", response={"id": "r"}),
                          ev("error", code="context_length_exceeded", message="Your input is too long")],
                         two_item_response())
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"x", "enter")
        await until(pilot, lambda: entries(app, ErrorEntry), "the error entry")
        assert "too long" in entries(app, ErrorEntry)[0].message
        assert app.query_one(StatusLine).state == "failed"
        await pilot.press(*"again", "enter")
        await until(pilot, lambda: done, "the next turn")
        assert entries(app, AssistantEntry)


HOSTILE = "Look\x1b]52;c;cHduZWQ=\x07 here \x1b[2J\x9b31m red \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ end\n"


async def test_hostile_model_text_never_reaches_the_terminal():
    # The escape sequences are split across deltas: ESC in one, the rest in the next.
    parts = ["Look\x1b", "]52;c;cHduZWQ=\x07 here \x1b", "[2J\x9b31m red \x1b]8;;http://evil\x1b",
             "\\link\x1b]8;;\x1b\\ end\n"]
    assert "".join(parts) == HOSTILE
    rsum = "**Plan\x1b[31m**"
    payloads = [created(), *reasoning_events("rs_1", rsum, 0),
                ev("response.output_item.added", output_index=1, item={"id": "m1", "type": "message", "role": "assistant", "content": []}),
                *[ev("response.output_text.delta", item_id="m1", output_index=1, content_index=0, delta=p) for p in parts],
                ev("response.output_item.done", output_index=1, item=message("m1", HOSTILE)),
                completed([reasoning("rs_1", rsum), message("m1", HOSTILE)])]
    server = GatedServer(payloads, gate_at={0: len(payloads) - 2})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"x", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) and p.shown for p in app.live.values()), "live text")
        # The live pane renders its Markdown asynchronously: wait for the visible code.
        await until(pilot, lambda: "␛]52;c;cHduZWQ=" in app.export_screenshot().replace("&#160;", " "),
                    "the escape shown as a visible code")
        live_svg = app.export_screenshot()
        server.release()
        await until(pilot, lambda: done, "turn completion")
        for widget in entries(app, ReasoningEntry):
            widget.query_one("Collapsible").collapsed = False
        await pilot.pause()
        final_svg = app.export_screenshot()
    for svg in (live_svg, final_svg):
        assert "\x1b" not in svg and "\x9b" not in svg and "\x07" not in svg
        assert "␛]52;c;cHduZWQ=" in svg.replace("&#160;", " ")
    assert "evil" in final_svg  # shown as harmless text, not as a hyperlink escape


async def test_up_recalls_earlier_prompts():
    server = GatedServer(two_item_response())
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"first prompt", "enter")
        await until(pilot, lambda: done, "turn")
        composer = app.query_one(Composer)
        assert composer.text == ""
        await pilot.press("up")
        assert composer.text == "first prompt"
        await pilot.press("down")
        assert composer.text == ""


async def test_newline_binding_makes_multi_line_prompts():
    server = GatedServer(two_item_response())
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press("a", "ctrl+j", "b", "enter")
        await until(pilot, lambda: done, "turn")
        assert server.requests[0]["input"][0]["content"][0]["text"] == "a\nb"


async def test_theme_switch_from_the_palette_is_remembered(tmp_path):
    server = GatedServer(two_item_response())
    app = make_app(server, remember_theme=True)
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.theme == "rivulet-dark"
        await pilot.press("ctrl+p")
        await pilot.press(*"Theme: rivulet-light")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: app.theme == "rivulet-light", "the theme to change")
    import tomllib

    assert tomllib.loads((tmp_path / "config.toml").read_text())["theme"] == "rivulet-light"


async def test_raw_reasoning_shows_live_when_it_is_all_the_server_sends():
    """llama.cpp and gpt-oss send only raw reasoning_text: that is all the reasoning
    there is, so the live pane shows it without ctrl+r."""
    raw = [created(), ev("response.output_item.added", output_index=0, item={"id": "rs", "type": "reasoning", "summary": []}),
           ev("response.reasoning_text.delta", item_id="rs", output_index=0, content_index=0, delta="local chain\n")]
    server = GatedServer(raw + [ev("response.output_item.done", output_index=0, item={"id": "rs", "type": "reasoning", "summary": []}),
                                completed([{"id": "rs", "type": "reasoning", "summary": []}])], gate_at={0: len(raw)})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"x", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveReasoning) and "local chain" in p.summary
                                       for p in app.live.values()), "raw reasoning shown live")
        server.release()


async def test_raw_reasoning_is_behind_a_toggle_when_summaries_come():
    raw = [created(), ev("response.output_item.added", output_index=0, item={"id": "rs", "type": "reasoning", "summary": []}),
           ev("response.reasoning_summary_text.delta", item_id="rs", output_index=0, summary_index=0,
              delta="**Summary**\n"),
           ev("response.reasoning_text.delta", item_id="rs", output_index=0, content_index=0, delta="secret chain\n")]
    server = GatedServer(raw + [ev("response.output_item.done", output_index=0, item={"id": "rs", "type": "reasoning", "summary": []}),
                                completed([{"id": "rs", "type": "reasoning", "summary": []}])], gate_at={0: len(raw)})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"x", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveReasoning) and p.raw for p in app.live.values()),
                    "reasoning pane")
        await pilot.pause(0.1)
        pane = next(p for p in app.live.values() if isinstance(p, LiveReasoning))
        assert "secret chain" not in pane.summary and "Summary" in pane.summary and pane.raw == ["secret chain\n"]
        await pilot.press("ctrl+r")
        assert pane.show_raw
        server.release()


async def test_llamacpp_overlapping_items_stream_into_their_own_panes_with_one_protocol_note():
    """The message is still open when llama-server adds the function call: the
    message pane stops growing, the call gets its own pane, both commit in order, and
    the deviation is one dim line (listed with every note in the inspector)."""
    from helpers.recorded import recording

    from rivulet.core.protocol.recordings import sse_payloads
    from rivulet.widgets.inspector import InspectorScreen

    rec = recording("llamacpp_text_then_function_call.sse")
    payloads = sse_payloads(rec.body)
    added = [n for n, p in enumerate(payloads) if '"output_item.added"' in p or "output_item.added" in p]
    gate = added[1] + 2  # the call was added and has streamed its arguments; nothing is done yet
    follow = [created("r2"), *message_events("m2", "It is noon."), completed([message("m2", "It is noon.")], "r2")]
    server = GatedServer(payloads, follow, gate_at={0: gate})
    app = make_app(server, tools=BuiltinTools())
    async with app.run_test(size=(100, 40)) as pilot:
        done = turn_completions(app)
        await pilot.press(*"time?", "enter")
        await server.reached.wait()
        await until(pilot, lambda: len(app.live) == 2, "two live panes")
        message_pane, call_pane = list(app.live.values())
        await until(pilot, lambda: message_pane.has_class("live-ended"), "the message pane to stop")
        assert type(call_pane).__name__ == "LiveToolCall"
        notes = [str(w.render()) for w in app.query(".protocol-note")]
        assert any("overlapping_items" in n for n in notes) and any("no_output_index" in n for n in notes)
        server.release()
        await until(pilot, lambda: done, "turn completion")
        assert [type(e) for e in entries(app)] == [UserEntry, AssistantEntry, ToolCallEntry, AssistantEntry]
        assert entries(app, AssistantEntry)[0].item["content"][0]["text"] == "To check the clock, "
        # Each rule shows once, however many times it happened.
        assert len({str(w.render()) for w in app.query(".protocol-note")}) == len(app.query(".protocol-note"))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        # Listed in the table (`shown`), not only held: the notes used to be cut off the list.
        rows = [e.item for e in app.screen.shown if e.item.get("type") == "protocol.deviation"]
        assert "overlapping_items" in {r["rule"] for r in rows}


async def test_a_long_status_gives_way_on_the_left_and_never_runs_into_the_right():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(70, 20)) as pilot:
        status = app.query_one(StatusLine)
        status.state, status.elapsed = "working", 7
        status.heading = "Writing a patch that touches many files across the whole workspace"
        status.sandbox = "sandbox workspace-write"
        status.refresh_line()
        await pilot.pause()
        line = str(status.render())
        # Issue 25's priorities: the heading and the sandbox give way whole; state and model stay.
        assert line.rstrip().endswith("gpt-5.1-codex") and line.startswith("Working (7s • esc to interrupt)")
        assert "…" not in line and "Writing" not in line
        assert len(line.rstrip()) <= 68
