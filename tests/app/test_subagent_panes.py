"""Subagents in the chat (issue 41): each streams in its own pane under the call that
spawned it, keyed by subagent and item (never into the conversation's live pane or
another subagent's), folds to its header and a one-line result when it ends, opens in
the inspector, and says which subagent asks an approval. Events are published on the
app's bridge, as the core relays them."""

from __future__ import annotations

import asyncio

import pytest
from helpers.tui import GatedServer, make_app, until
from textual.widgets import DataTable, Static

from rivulet.core.subagents.events import SubagentEnded, SubagentEvent, SubagentStarted
from rivulet.core.tools.approval import ApprovalRequest, Decision
from rivulet.core.tools.approval_event import ApprovalRequested
from rivulet.core.turn import bus as b
from rivulet.widgets.dialogs import ApprovalScreen
from rivulet.widgets.entries import ToolCallEntry
from rivulet.widgets.inspector import InspectorScreen
from rivulet.widgets.live import LiveMessage
from rivulet.widgets.subagent_pane import SubagentPane

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def spawn(n: int) -> dict:
    return {"id": f"fc_{n}", "type": "function_call", "status": "completed", "call_id": f"call_{n}",
            "name": "spawn_agent", "arguments": f'{{"task": "task number {n}", "name": "agent{n}"}}'}


def msg(mid: str, text: str = "") -> dict:
    return {"id": mid, "type": "message", "role": "assistant", "status": "completed" if text else "in_progress",
            "content": [{"type": "output_text", "text": text, "annotations": []}] if text else []}


def inner(n: int, event: b.BusEvent) -> SubagentEvent:
    return SubagentEvent(f"sa-{n}", f"call_{n}", event)


def drawn(app, widget) -> str:
    """What the screen shows inside `widget`'s region."""
    strips = app.screen._compositor.render_strips()
    r = widget.region
    return "\n".join(strips[y].text[r.x:r.x + r.width] for y in range(r.y, r.y + r.height) if y < len(strips))


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def texts(widget) -> str:
    return "\n".join(str(s.render()) for s in widget.query(Static) if s.display)


async def two_running(app, pilot) -> tuple[SubagentPane, SubagentPane]:
    """Two spawn_agent calls committed, each with its subagent started and streaming a
    message (the same item id in both: the keys are subagent and item)."""
    bridge = app.bridge
    bridge.publish(b.TurnStarted(1, "delegate"))
    for n in (1, 2):
        bridge.publish(b.ItemCompleted(spawn(n), f"fc_{n}"))
    for n in (1, 2):
        bridge.publish(SubagentStarted(f"sa-{n}", f"call_{n}", f"agent{n}", f"task number {n}"))
        bridge.publish(inner(n, b.ItemStarted(msg("m_1"), "m_1")))
    await until(pilot, lambda: len(app.live_panes.nested) == 2, "both subagents' live panes")
    panes = list(app._transcript.query_children(SubagentPane))
    return panes[0], panes[1]


async def test_each_subagent_streams_in_its_own_pane_under_its_call():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        first, second = await two_running(app, pilot)
        order = [w for w in app._transcript.children if isinstance(w, (ToolCallEntry, SubagentPane))]
        assert [(type(w).__name__, w.item.get("call_id")) for w in order] == [
            ("ToolCallEntry", "call_1"), ("SubagentPane", "call_1"),
            ("ToolCallEntry", "call_2"), ("SubagentPane", "call_2")]
        assert "agent1" in texts(first) and "running" in texts(first) and "task number 1" in texts(first)
        # The conversation's own message streams too, with the same item id as theirs.
        app.bridge.publish(b.ItemStarted(msg("m_1"), "m_1"))
        app.bridge.publish(inner(1, b.ItemDelta("m_1", "output_text", "FIRST subagent line\n")))
        app.bridge.publish(inner(2, b.ItemDelta("m_1", "output_text", "SECOND subagent line\n")))
        app.bridge.publish(b.ItemDelta("m_1", "output_text", "PARENT line\n"))
        await until(pilot, lambda: "m_1" in app.live_panes.live, "the conversation's live pane")
        live_1, live_2 = app.live_panes.nested[("sa-1", "m_1")], app.live_panes.nested[("sa-2", "m_1")]
        parent = app.live_panes.live["m_1"]
        await until(pilot, lambda: "FIRST" in drawn(app, live_1) and "SECOND" in drawn(app, live_2)
                    and "PARENT" in drawn(app, parent), "every pane drawn")
        assert isinstance(live_1, LiveMessage)
        assert live_1 in first.query(LiveMessage) and live_2 in second.query(LiveMessage)
        for pane, own in ((live_1, "FIRST"), (live_2, "SECOND"), (parent, "PARENT")):
            shown = drawn(app, pane)
            assert own in shown and not {"FIRST", "SECOND", "PARENT"} - {own} & set(shown.split()), shown


async def test_a_subagent_folds_to_its_header_and_a_line_when_it_ends():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        first, second = await two_running(app, pilot)
        bridge = app.bridge
        bridge.publish(inner(1, b.ItemDelta("m_1", "output_text", "working on it\n")))
        bridge.publish(inner(1, b.ItemCompleted(msg("m_1", "The answer is 42.\nMore detail."), "m_1")))
        bridge.publish(inner(1, b.UsageUpdated("r1", {"input_tokens": 1000, "output_tokens": 234})))
        bridge.publish(SubagentEnded("sa-1", "call_1", "completed", "The answer is 42.\nMore detail.", None,
                                     {"input_tokens": 1000, "output_tokens": 234}, None))
        bridge.publish(SubagentEnded("sa-2", "call_2", "failed", None, "the server refused: [b]bad[/b]", None,
                                     None))
        await until(pilot, lambda: first.folded and second.folded and not app.live_panes.nested, "both folded")
        await pilot.pause()
        assert not first.query(LiveMessage) and not second.query(LiveMessage)
        shown = texts(first)
        assert "done" in shown and "1,234 tokens" in shown and "→ The answer is 42." in shown
        assert "More detail" not in shown  # one line
        shown = texts(second)
        assert "failed" in shown and "→ the server refused: [b]bad[/b]" in shown  # never markup


async def test_a_pane_opens_the_subagents_items_in_the_inspector():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        first, _ = await two_running(app, pilot)
        app.bridge.publish(inner(1, b.ItemCompleted(msg("m_1", "sub answer"), "m_1")))
        app.bridge.publish(inner(2, b.ItemCompleted(msg("m_1", "other answer"), "m_1")))
        app.bridge.publish(SubagentEnded("sa-1", "call_1", "completed", "sub answer", None, None, None))
        await until(pilot, lambda: first.folded, "folded")
        await pilot.click(SubagentPane)
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        assert [e.item for e in screen.entries] == [msg("m_1", "sub answer")]  # its own, not the other's
        assert screen.query_one(DataTable).row_count == 1
        assert "Subagent 'agent1'" in texts(screen)
        await pilot.press("e")  # a subagent's history is not the conversation's: nothing is rewound
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, InspectorScreen), "the inspector closed")
        first.focus()  # from the keyboard: Enter on the pane opens it too
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector again")


async def test_an_approval_from_a_subagent_says_which_one_asks():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        decision = asyncio.get_running_loop().create_future()
        request = ApprovalRequest("shell", "c1", "rm -rf build")
        app.bridge.publish(ApprovalRequested("approval-1", request, decision, "[b]tests[/b]\x1b[31m"))
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-subagent"),
                    "the dialog, composed")
        label = app.screen.query_one("#approval-subagent", Static)
        assert str(label.render()) == "agent '[b]tests[/b]␛[31m' asks:"  # literal, controls made visible
        await pilot.press("n")
        await until(pilot, decision.done, "the answer")


async def test_a_subagents_long_question_at_80x24_keeps_its_label_buttons_and_hint_on_screen():
    from rivulet.widgets.approval_gate import READY

    app = make_app(GatedServer([]))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        command = "\n".join(f"echo line {n}" for n in range(40))
        request = ApprovalRequest("shell", "c1", command, reason="because")
        decision = asyncio.get_running_loop().create_future()
        app.bridge.publish(ApprovalRequested("approval-1", request, decision, "tests"))
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the dialog")
        await until(pilot, lambda: READY in screen_text(app), "the hint, on screen")
        shown = screen_text(app)
        assert "agent 'tests' asks:" in shown and "Stop (s)" in shown


async def test_an_approval_from_the_conversation_names_no_subagent():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        decision = asyncio.get_running_loop().create_future()
        app.bridge.publish(ApprovalRequested("approval-1", ApprovalRequest("shell", "c1", "ls"), decision))
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-hint"),
                    "the dialog, composed")
        assert not app.screen.query("#approval-subagent")


def resumed_session(later_turns: int):
    from rivulet.core import items as it
    from rivulet.core.store.session import Session, SessionMeta
    from rivulet.core.turn.history import History

    history = History()
    history.append(it.user_message("delegate it"), key="user-1")
    history.append(spawn(1), "req-1", "fc_1")
    history.append({"type": "function_call_output", "call_id": "call_1", "output": "42, capped"}, key="out-1")
    for n in range(later_turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 2}")
        history.append(msg(f"m{n}", f"Answer {n}."), "req-2", f"m{n}")
    items = [msg("sm_1", "The sub answer.\nDetails.")]
    return Session(SessionMeta("sub", 0, "/", "m", "u"), history, subagent_items={"call_1": items},
                   subagents={"call_1": ("sa-1", "[i]helper[/i]")})


async def test_a_resumed_sessions_subagent_is_a_folded_pane_under_its_call_and_opens_its_items():
    app = make_app(GatedServer([]), session=resumed_session(0))
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app._transcript.query_children(SubagentPane), "the subagent's pane")
        pane = app._transcript.query_children(SubagentPane).first()
        shown = [w for w in app._transcript.children if isinstance(w, (ToolCallEntry, SubagentPane))]
        assert shown == [app._transcript.query_children(ToolCallEntry).first(), pane]
        await pilot.pause()
        assert texts(shown[0]).strip() == "⚙ spawn_agent"  # its task and answer are the pane's lines
        text = texts(pane)
        assert pane.folded and "'[i]helper[/i]'" in text and "task: task number 1" in text
        assert "→ The sub answer." in text and "Details" not in text
        await pilot.press("ctrl+f")  # find sees the pane's name, task and result
        await pilot.press(*"sub answer")
        await until(pilot, lambda: app.chat.search.matches == [pane], "the pane found")
        await pilot.press("escape")
        await pilot.click(SubagentPane)
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        assert [e.item for e in app.screen.entries] == [msg("sm_1", "The sub answer.\nDetails.")]


async def test_an_old_resumed_subagent_is_drawn_folded_in_the_frozen_block():
    app = make_app(GatedServer([]), session=resumed_session(12))
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: "Answer 11." in screen_text(app), "the session")
        frozen = app._transcript.frozen
        assert frozen is not None
        keys = [key for key, _, _ in frozen.entries]
        assert keys[:4] == ["user-1", "fc_1", "subagent-call_1", "user-2"]  # right under its call
        app._transcript.scroll_by_key("top")
        await until(pilot, lambda: "◆ agent '[i]helper[/i]' · done" in screen_text(app), "the folded pane")
        assert "▌ → The sub answer." in screen_text(app)
        from textual.selection import Selection

        copied = frozen.get_selection(Selection(None, None))
        assert copied is not None and "◆ agent '[i]helper[/i]' · done" in copied[0]
        assert "▌" not in copied[0]  # the bar is chrome, not copied


def delegating_app(tmp_path, gate: asyncio.Event):
    """The chat over the engine's runner and a scripted server (tests/helpers/agent_server.py):
    "delegate" spawns two subagents, whose answers stream a first delta and wait for `gate`."""
    from helpers.agent_server import AgentServer, answer_parts
    from helpers.agent_server import spawn as spawn_call
    from helpers.calls import answer, fn_call_response
    from helpers.mock_api import settings

    from rivulet.app.tui import RivuletApp
    from rivulet.core.tools.router import ToolSettings

    def held(rid: str, text: str):
        start, rest = answer_parts(rid, text)

        async def stream():
            yield start
            await gate.wait()
            yield rest

        return stream

    server = AgentServer({
        "delegate": [fn_call_response("r1", spawn_call("call_a", "count the tests", name="counter"),
                                      spawn_call("call_b", "read the docs", name="reader")),
                     answer("r2", "both done")],
        "count the tests": [held("ra", "there are twelve tests\n")],
        "read the docs": [held("rb", "the docs are fine\n")],
    })
    return RivuletApp(settings(model="gpt-5.1-codex", workspace=str(tmp_path), save_sessions=False),
                      server.transport(), tool_settings=ToolSettings(workspace=tmp_path), remember_theme=False)


async def both_streaming(app, pilot) -> dict[str, SubagentPane]:
    app.run_turn("delegate")
    await until(pilot, lambda: len(app.live_panes.nested) == 2 and all(
        "there are" in drawn(app, p) or "the docs" in drawn(app, p) for p in app.live_panes.nested.values()),
        "both subagents streaming at once")
    return {p.item["name"]: p for p in app._transcript.query_children(SubagentPane)}


async def test_two_subagents_of_a_real_turn_stream_at_once_in_their_panes_then_fold(tmp_path):
    gate = asyncio.Event()
    app = delegating_app(tmp_path, gate)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        panes = await both_streaming(app, pilot)
        assert set(panes) == {"counter", "reader"} and not any(p.folded for p in panes.values())
        assert "there are" in drawn(app, panes["counter"]) and "the docs" not in drawn(app, panes["counter"])
        assert "the docs" in drawn(app, panes["reader"]) and "there are" not in drawn(app, panes["reader"])
        gate.set()
        await until(pilot, lambda: "both done" in screen_text(app) and app._status.state == "idle", "the answer")
        await until(pilot, lambda: all(p.folded for p in panes.values()), "both folded")
        assert "→ there are twelve tests" in texts(panes["counter"]) and "done" in texts(panes["counter"])
        assert not app.live_panes.nested
        # Each call above its pane says only that it spawned it: the task and the answer are the pane's.
        for call in app._transcript.query_children(ToolCallEntry):
            assert "spawn_agent" in texts(call) and "task" not in texts(call) and "→" not in texts(call)


async def test_esc_stops_every_running_subagent_and_folds_their_panes_cancelled(tmp_path):
    app = delegating_app(tmp_path, asyncio.Event())  # (never released)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        panes = await both_streaming(app, pilot)
        await pilot.press("escape")
        await until(pilot, lambda: all(p.folded for p in panes.values()) and app._status.state != "working",
                    "both folded")
        assert all(p.item["status"] == "cancelled" and "cancelled" in texts(p) for p in panes.values())
        assert not app.live_panes.nested


async def test_a_real_subagents_approval_is_labelled_and_its_answer_reaches_it(tmp_path):
    from helpers.agent_server import AgentServer
    from helpers.agent_server import spawn as spawn_call
    from helpers.calls import answer, fn_call, fn_call_response
    from helpers.mock_api import settings

    from rivulet.app.tui import RivuletApp
    from rivulet.core.tools.router import ToolSettings

    shell = fn_call("fc_s", "call_s", "shell", {"command": "echo hi | tee made.txt", "workdir": None,
                                               "timeout_ms": 5000, "justification": None, "outside_sandbox": None})
    server = AgentServer({
        "make it": [fn_call_response("r1", spawn_call("call_a", "make a file", name="maker")), answer("r2", "done")],
        "make a file": [fn_call_response("ra1", shell), answer("ra2", "made it")],
    })
    app = RivuletApp(settings(model="gpt-5.1-codex", workspace=str(tmp_path), save_sessions=False, sandbox="off",
                              approval="ask"),
                     server.transport(), tool_settings=ToolSettings(workspace=tmp_path), remember_theme=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.run_turn("make it")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-subagent"),
                    "the subagent's question, composed")
        assert str(app.screen.query_one("#approval-subagent", Static).render()) == "agent 'maker' asks:"
        await pilot.press("y")
        await until(pilot, lambda: app._status.state == "idle" and "done" in screen_text(app), "the answer")
        assert (tmp_path / "made.txt").read_text() == "hi\n"
        pane = app._transcript.query_children(SubagentPane).first()
        assert pane.folded and "→ made it" in texts(pane)
        assert [e.item.get("type") for e in app.subagents.items["call_a"]] == [
            "message", "function_call", "function_call_output", "message"]


async def test_a_chats_subagents_come_back_folded_when_its_session_is_resumed(tmp_path):
    from helpers.agent_server import AgentServer
    from helpers.agent_server import spawn as spawn_call
    from helpers.calls import answer, fn_call_response
    from helpers.mock_api import settings

    from rivulet.app.tui import RivuletApp
    from rivulet.core.store.session import SessionWriter, load_session
    from rivulet.core.tools.router import ToolSettings

    server = AgentServer({
        "split it": [fn_call_response("r1", spawn_call("call_a", "first half", name="one"),
                                      spawn_call("call_b", "second half", name="two")), answer("r2", "joined")],
        "first half": [answer("ra", "half A done")],
        "second half": [answer("rb", "half B done")],
    })
    writer, _ = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path / "sessions")

    def chat(**kw) -> RivuletApp:
        return RivuletApp(settings(model="gpt-5.1-codex", workspace=str(tmp_path)), server.transport(),
                          tool_settings=ToolSettings(workspace=tmp_path), remember_theme=False, **kw)

    app = chat(session_writer=writer)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.run_turn("split it")
        await until(pilot, lambda: app._status.state == "idle" and "joined" in screen_text(app), "the answer")
        # A transcript rebuilt from history (an edit of a message no longer a widget) draws them again.
        from rivulet.app.edit_resend import drop_cut_entries

        await drop_cut_entries(app.chat, app.commits, app.conversation, turn_id=99)
        await until(pilot, lambda: len(app._transcript.query_children(SubagentPane)) == 2, "both panes again")
        calls = [w.item.get("call_id") for w in app._transcript.children if isinstance(w, (ToolCallEntry, SubagentPane))]
        assert calls == ["call_a", "call_a", "call_b", "call_b"]
        assert all(p.folded for p in app._transcript.query_children(SubagentPane))
    resumed = chat(session=load_session(writer.path))
    async with resumed.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: len(resumed._transcript.query_children(SubagentPane)) == 2, "both panes")
        await pilot.pause()
        one, two = resumed._transcript.query_children(SubagentPane)
        assert (one.item["name"], two.item["name"]) == ("one", "two")
        assert "→ half A done" in texts(one) and "task: second half" in texts(two) and "done" in texts(two)
        await pilot.click(SubagentPane)
        await until(pilot, lambda: isinstance(resumed.screen, InspectorScreen), "the inspector")
        assert [e.item.get("role") for e in resumed.screen.entries] == ["user", "assistant"]
        await pilot.press("escape")
        await drop_cut_entries(resumed.chat, resumed.commits, resumed.conversation, turn_id=99)  # (rebuilt)
        await until(pilot, lambda: len(resumed._transcript.query_children(SubagentPane)) == 2, "both again")


async def test_a_new_conversation_forgets_the_last_ones_subagents():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await two_running(app, pilot)
        app.bridge.publish(inner(1, b.ItemCompleted(msg("m_2", "sub answer"), "m_2")))
        await until(pilot, lambda: app.subagents.items["call_1"], "its item kept")
        await app.services.transcript.start_over()  # /new
        assert not app.subagents.items and not app.subagents.panes and not app.live_panes.nested
        assert app.subagents.entries("subagent-call_1") is None


async def test_an_item_started_and_committed_in_one_batch_gets_no_live_pane(monkeypatch):
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        first, _ = await two_running(app, pilot)
        mounted: list = []
        real = SubagentPane.add_live

        async def add_live(self, pane):
            mounted.append(pane.item_id)
            await real(self, pane)

        monkeypatch.setattr(SubagentPane, "add_live", add_live)
        call = {"id": "fc_x", "type": "function_call", "status": "completed", "call_id": "cx", "name": "shell",
                "arguments": '{"command": "ls"}'}
        app.bridge.publish(inner(1, b.ItemStarted({**call, "arguments": ""}, "fc_x")))  # one batch: the
        app.bridge.publish(inner(1, b.ItemCompleted(call, "fc_x")))  # bridge drains them together
        await until(pilot, lambda: "fc_x" in [e.key for e in app.subagents.items["call_1"]], "its commit")
        await pilot.pause()
        assert mounted == [] and ("sa-1", "fc_x") not in app.live_panes.nested
        assert "call" in texts(first) and "ls" in texts(first)  # its line


async def test_the_status_line_counts_the_subagents_running():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await two_running(app, pilot)
        status = app._status
        await until(pilot, lambda: "2 subagents running" in str(status.render()), "two running")
        app.bridge.publish(SubagentEnded("sa-1", "call_1", "completed", "ok", None, None, None))
        await until(pilot, lambda: "1 subagent running" in str(status.render()), "one running")
        app.bridge.publish(SubagentEnded("sa-2", "call_2", "failed", None, "no", None, None))
        await until(pilot, lambda: "running" not in str(status.render()), "none running")


async def test_a_folded_panes_task_and_result_are_one_row_each_at_80_columns():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(80, 24)) as pilot:
        first, _ = await two_running(app, pilot)
        long = "a first line far longer than the pane is wide, " * 4
        app.bridge.publish(SubagentEnded("sa-1", "call_1", "completed", long, None, None, None))
        await until(pilot, lambda: first.folded, "folded")
        await pilot.pause()
        result = first.query_one(".subagent-result", Static)
        assert result.region.height == 1 and drawn(app, result).rstrip().endswith("…")


async def test_two_questions_asked_at_once_are_shown_one_after_the_other_in_the_order_asked():
    """Two subagents ask at once: one dialog at a time, the first asked first; a dialog
    pushed over another would take the keys meant for the one below it."""
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        loop = asyncio.get_running_loop()
        first, second = loop.create_future(), loop.create_future()
        app.bridge.publish(ApprovalRequested("approval-1", ApprovalRequest("shell", "c1", "make a"), first, "one"))
        app.bridge.publish(ApprovalRequested("approval-2", ApprovalRequest("shell", "c2", "make b"), second, "two"))
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the first dialog")
        await pilot.pause()
        assert app.screen.subagent == "one" and sum(isinstance(s, ApprovalScreen) for s in app.screen_stack) == 1
        await pilot.press("y")
        await until(pilot, lambda: first.done() and isinstance(app.screen, ApprovalScreen)
                    and app.screen.subagent == "two", "the second dialog, after the first answer")
        await pilot.press("n")
        await until(pilot, second.done, "the second answer")
        assert (first.result(), second.result()) == (Decision.YES, Decision.NO)
        assert not isinstance(app.screen, ApprovalScreen)
