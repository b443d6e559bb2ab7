"""The agent in the chat UI: a patch streams as a live diff, asks, applies; the turn diff;
a running command streams its output and Esc kills it."""

from __future__ import annotations

import json

import pytest
from helpers.calls import PATCH, custom_call, custom_call_events, fn_call
from helpers.mock_api import settings
from helpers.streams import completed, created, ev, message, message_events
from helpers.tui import GatedServer, settled, until

from rivulet.app.tui import RivuletApp
from rivulet.core.tools.router import ToolSettings
from rivulet.widgets.dialogs import ApprovalScreen, DiffScreen
from rivulet.widgets.entries import NoteEntry, ToolCallEntry
from rivulet.widgets.live import LivePatch

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def agent_app(server: GatedServer, workspace, approval: str = "ask") -> RivuletApp:
    s = settings(model="gpt-5.1-codex", approval=approval)
    return RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=workspace), remember_theme=False)


def follow_up(text: str) -> list[str]:
    return [created("r2"), *message_events("m2", text), completed([message("m2", text)], "r2")]


async def test_a_patch_streams_live_then_asks_then_applies(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("old\n")
    events = custom_call_events("ct_1", "call_p", "apply_patch", PATCH)
    first = [created(), *events, completed([custom_call("ct_1", "call_p", "apply_patch", PATCH)])]
    half = 1 + 1 + (len(events) - 3) * 3 // 4  # created, added, three quarters of the input deltas
    server = GatedServer(first, follow_up("Patched."), gate_at={0: half})
    app = agent_app(server, ws)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"patch please", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LivePatch) and p.parser.ops for p in app.live.values()),
                    "the live diff")
        pane = next(p for p in app.live.values() if isinstance(p, LivePatch))
        await until(pilot, lambda: len(pane.parser.ops) == 2 and not pane._pending, "both files in the live diff")
        shown = str(pane.query_one(".live-body").render())
        assert "A hello.txt" in shown and "M notes.md" in shown
        assert not (ws / "hello.txt").exists()  # nothing happens before Item Done
        server.release()
        # The dialog is pushed, then composed: wait for its diff, not only for the screen.
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen)
                    and "+new" in "".join(str(w.render()) for w in app.screen.query("#approval-detail Static")),
                    "the approval question with its diff")
        await pilot.press("y")
        await until(pilot, lambda: settled(app) and len(server.requests) == 2, "the follow-up")
        assert (ws / "hello.txt").read_text() == "hello\n" and (ws / "notes.md").read_text() == "new\n"
        entry = app.query_one(ToolCallEntry)
        assert "Success" in str(entry.query_one(".tool-output").render())
        assert "ctrl+t" in app._status.note
        await pilot.press("ctrl+t")
        await until(pilot, lambda: isinstance(app.screen, DiffScreen), "the turn diff")
        diff = str(app.screen.query_one("#diff-body Static").render())
        assert "+++ b/hello.txt" in diff and "-old" in diff and "+new" in diff
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DiffScreen), "the diff to close")


async def test_no_and_stop_from_the_dialog(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")
    first = [created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
             completed([custom_call("ct_1", "call_p", "apply_patch", PATCH)])]
    server = GatedServer(first, follow_up("never"))
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"patch please", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        await pilot.press("s")
        await until(pilot, lambda: settled(app), "the turn to stop")
        assert len(server.requests) == 1 and (tmp_path / "notes.md").read_text() == "old\n"
        assert app._status.note.startswith("Stopped:")


async def test_a_running_command_streams_and_escape_kills_it(tmp_path):
    cmd = {"command": "echo started; sleep 30; echo never", "workdir": None, "timeout_ms": None,
           "justification": None}
    call = fn_call("fc_1", "call_s", "shell", cmd)
    first = [created(), ev("response.output_item.added", output_index=0, item={**call, "arguments": ""}),
             ev("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=call["arguments"]),
             ev("response.output_item.done", output_index=0, item=call), completed([call])]
    server = GatedServer(first, follow_up("ok"))
    app = agent_app(server, tmp_path, approval="never-ask")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"run it", "enter")
        await until(pilot, lambda: app.query(ToolCallEntry) and "started" in str(
            app.query_one(ToolCallEntry).query_one(".tool-output").render()), "the command's output")
        assert "$ echo started" in str(app.query_one(ToolCallEntry).query_one(".tool-args").render())
        await pilot.press("escape")
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn to stop")
        history = app.conversation.history.items
        assert history[-2]["output"].startswith("aborted")
        await until(pilot, lambda: app.query(NoteEntry), "the note")
        await pilot.press(*"again", "enter")
        await until(pilot, lambda: len(server.requests) == 2 and settled(app), "the next turn")
        sent = server.requests[1]["input"]
        calls = [i for i in sent if i["type"] == "function_call"]
        outputs = [i for i in sent if i["type"] == "function_call_output"]
        assert [c["call_id"] for c in calls] == [o["call_id"] for o in outputs] == ["call_s"]
        assert json.dumps(sent).count("turn_aborted") == 2  # the note's open and close tags


async def test_escape_while_the_approval_dialog_is_open(tmp_path):
    (tmp_path / "notes.md").write_text("old\n")
    first = [created(), *custom_call_events("ct_1", "call_p", "apply_patch", PATCH),
             completed([custom_call("ct_1", "call_p", "apply_patch", PATCH)])]
    server = GatedServer(first, follow_up("after"))
    app = agent_app(server, tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"patch please", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        await pilot.press("escape")
        await until(pilot, lambda: not app.turn_worker.is_running and not isinstance(app.screen, ApprovalScreen),
                    "the turn to stop and the dialog to close")
        assert (tmp_path / "notes.md").read_text() == "old\n" and not (tmp_path / "hello.txt").exists()
        output = app.conversation.history.items[-2]
        assert output["type"] == "custom_tool_call_output" and output["output"].startswith("aborted")
        await pilot.press(*"next", "enter")  # the app is usable, and the next request is valid
        await until(pilot, lambda: len(server.requests) == 2 and settled(app), "the next turn")
        sent = server.requests[1]["input"]
        assert [i["type"] for i in sent].count("custom_tool_call_output") == 1


HOSTILE = "\x1b]52;c;cHduZWQ=\x07 \x9b2J \x1b]8;;http://evil\x1b\\"


async def test_hostile_text_in_patches_commands_and_outputs_never_reaches_the_terminal(tmp_path):
    from rivulet.widgets.inspector import InspectorScreen, RawItemScreen

    patch = f"*** Begin Patch\n*** Add File: evil.txt\n+{HOSTILE}\n*** End Patch\n"
    shell = fn_call("fc_2", "call_s", "shell", {"command": f"printf '%b' '\\033]52;c;b3duZWQ=\\007'; echo '{HOSTILE}'",
                                                "workdir": None, "timeout_ms": None, "justification": HOSTILE})
    first = [created(), *custom_call_events("ct_1", "call_p", "apply_patch", patch),
             completed([custom_call("ct_1", "call_p", "apply_patch", patch)])]
    second = [created("r2"), ev("response.output_item.added", output_index=0, item={**shell, "arguments": ""}),
              ev("response.function_call_arguments.delta", item_id="fc_2", output_index=0, delta=shell["arguments"]),
              ev("response.output_item.done", output_index=0, item=shell), completed([shell], "r2")]
    server = GatedServer(first, second, follow_up("done"))
    app = agent_app(server, tmp_path)
    screens: list[str] = []
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the patch question")
        screens.append(app.export_screenshot())
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.request.kind == "shell",
                    "the command question")
        screens.append(app.export_screenshot())
        await pilot.press("y")
        await until(pilot, lambda: settled(app) and len(server.requests) == 3, "the turn")
        screens.append(app.export_screenshot())
        await pilot.press("ctrl+t")
        await pilot.pause()
        screens.append(app.export_screenshot())
        await pilot.press("escape")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        screens.append(app.export_screenshot())
        app.open_raw_item("ct_1")
        await until(pilot, lambda: isinstance(app.screen, RawItemScreen), "the raw patch")
        await pilot.pause()
        screens.append(app.export_screenshot())
    assert (tmp_path / "evil.txt").read_text() == HOSTILE + "\n"  # the file gets what the model wrote
    for svg in screens:
        assert "\x1b" not in svg and "\x9b" not in svg and "\x07" not in svg
    assert any("␛]52;c;cHduZWQ=" in s.replace("&#160;", " ") for s in screens)
