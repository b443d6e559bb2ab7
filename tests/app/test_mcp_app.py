"""MCP in the chat app (Pilot), with the real stdio test server (tests/peers/mcp_server.py)
and a scripted model: the servers start with the conversation without holding up the
UI, a call is asked about and its result shown, /mcp lists the servers, Esc cancels a
running call on the server, and quitting stops every server (checked by process id)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from e2e.mcp_helpers import SERVER, alive, descendants, marks
from helpers.mock_api import settings
from helpers.streams import completed, created, ev, message, message_events
from helpers.tui import GatedServer, settled, until

from rivulet.app.commands.registry import palette_commands
from rivulet.app.tui import RivuletApp
from rivulet.app.tui_commands import start
from rivulet.core.tools.router import ToolSettings
from rivulet.widgets.dialogs import ApprovalScreen
from rivulet.widgets.entries import ToolCallEntry
from rivulet.widgets.inspector import RawItemScreen
from rivulet.widgets.mcp_panel import McpScreen

BROKEN = {"command": sys.executable, "args": ["-c", "import sys; print('no database here', file=sys.stderr); "
                                                    "sys.exit(1)"]}


pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def mcp_turn(name: str, args: dict, rid: str = "r1") -> list[str]:
    call = {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_m", "name": name,
            "arguments": json.dumps(args)}
    return [created(rid), ev("response.output_item.added", output_index=0, item={**call, "arguments": ""}),
            ev("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=call["arguments"]),
            ev("response.output_item.done", output_index=0, item=call), completed([call], rid)]


def answer(text: str = "ok", rid: str = "r2") -> list[str]:
    return [created(rid), *message_events("m2", text), completed([message("m2", text)], rid)]


def mcp_app(server: GatedServer, workspace: Path, marks_file: Path, approval: str = "ask") -> RivuletApp:
    test = {"command": sys.executable, "args": [str(SERVER)], "env": {"MCP_TEST_MARKS": str(marks_file)},
            "startup_timeout": 60}
    s = settings(model="gpt-5.1-codex", approval=approval, mcp_servers={"test": test, "broken": BROKEN,
                                                                         "off": {**BROKEN, "enabled": False}})
    # No sandbox (ToolSettings' default): the server's pid is the real one.
    return RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=workspace), remember_theme=False)


def _text(widget) -> str:
    return "\n".join(str(s.render()) for s in widget.query("Static"))


async def test_a_call_is_asked_about_its_result_shown_and_the_servers_stopped_on_exit(tmp_path):
    server = GatedServer(mcp_turn("test__echo", {"text": "[b]hi[/b]"}), answer("done"))
    app = mcp_app(server, tmp_path, tmp_path / "marks")
    before = descendants()
    async with app.run_test(size=(100, 30)) as pilot:
        assert app._composer.has_focus  # the UI is there while the servers start
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-arguments"),
                    "the approval question")
        request = app.screen.request
        assert (request.kind, request.server, request.tool) == ("mcp", "test", "echo")
        assert '"text": "[b]hi[/b]"' in _text(app.screen)
        running = descendants() - before
        assert running  # the test server (the broken one has exited)
        await pilot.press("y")
        await until(pilot, lambda: settled(app) and len(server.requests) == 2, "the turn")
        entry = app._transcript.query(ToolCallEntry).first()
        shown = _text(entry)
        assert "test · echo" in shown and "→ echo: [b]hi[/b]" in shown
        outputs = [i for i in server.requests[1]["input"] if i.get("type") == "function_call_output"]
        assert outputs == [{"type": "function_call_output", "call_id": "call_m", "output": "echo: [b]hi[/b]"}]
        # The inspector (and a click on the entry) has the raw items as committed.
        await pilot.click(ToolCallEntry)
        await until(pilot, lambda: isinstance(app.screen, RawItemScreen), "the raw item")
        raw = json.loads(app.screen.text)
        assert (raw["type"], raw["name"], json.loads(raw["arguments"])) == ("function_call", "test__echo",
                                                                            {"text": "[b]hi[/b]"})
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RawItemScreen), "the raw item closing")
        # The model was offered the test server's tools, and none of the broken one's.
        names = {t["name"] for t in server.requests[0]["tools"]}
        assert {"test__echo", "test__hang"} <= names and not any(n.startswith("broken__") for n in names)

        # /mcp: the entry of the command registry that the palette and slash commands read.
        mcp_command = next(c for c in palette_commands(app.services) if c.slash == "mcp")
        assert mcp_command.title == "MCP servers"
        start(app, mcp_command)
        await until(pilot, lambda: isinstance(app.screen, McpScreen), "the MCP view")
        await pilot.pause()
        view = _text(app.screen)
        assert "● test  stdio · ready" in view and "echo, add, red_pixel" in view
        assert "✗ broken  stdio · failed" in view and "no database here" in view
        assert "○ off  stdio · disabled" in view
        await pilot.press("escape")  # closes the view, does not interrupt anything
        await until(pilot, lambda: not isinstance(app.screen, McpScreen), "the view closing")
        assert app._status.state == "idle"
    assert running and not any(alive(pid) for pid in running)  # nothing survives the app


async def test_esc_cancels_a_running_mcp_call_on_the_server(tmp_path):
    server = GatedServer(mcp_turn("test__hang", {"seconds": 3600}), answer("unused"))
    marks_file = tmp_path / "marks"
    app = mcp_app(server, tmp_path, marks_file, approval="never-ask")
    before = descendants()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: any(m.startswith("hang started") for m in marks(marks_file)), "the hang")
        running = descendants() - before
        await pilot.press("escape")
        await until(pilot, lambda: "hang cancelled" in marks(marks_file), "the cancellation on the server")
        await until(pilot, lambda: settled(app), "the interrupted turn")
        assert "Interrupted" in (app._status.note or "")
        assert len(server.requests) == 1  # no follow-up: the turn stopped
        history = app.conversation.history.items
        aborted = [i for i in history if i.get("type") == "function_call_output"]
        assert len(aborted) == 1 and "abort" in str(aborted[0]["output"]).lower()
    assert running and not any(alive(pid) for pid in running)


async def test_a_slow_server_does_not_block_the_ui_and_esc_gives_the_message_back(tmp_path):
    gate = tmp_path / "gate"
    # A server that starts only once the test creates the gate file.
    slow = {"command": sys.executable, "startup_timeout": 120, "args": ["-c", (
        "import os, runpy, sys, time\n"
        f"while not os.path.exists({str(gate)!r}): time.sleep(0.02)\n"
        f"sys.argv = [{str(SERVER)!r}]\nrunpy.run_path({str(SERVER)!r}, run_name='__main__')\n")]}
    server = GatedServer(answer("hello"))
    s = settings(model="gpt-5.1-codex", mcp_servers={"slow": slow})
    app = RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=tmp_path), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hi there", "enter")
        await until(pilot, lambda: any("Waiting for the MCP servers" in str(n.message)
                                       for n in app._notifications), "the waiting toast")
        assert app.mcp.status()[0]["state"] == "starting" and not server.requests
        await pilot.press("escape")  # the UI answers: the message comes back
        await until(pilot, lambda: app._composer.text == "hi there", "the message back in the composer")
        assert not server.requests
        gate.touch()
        await until(pilot, lambda: app.mcp.status()[0]["state"] == "ready", "the server ready")
        await pilot.press("enter")
        await until(pilot, lambda: len(server.requests) == 1 and settled(app), "the turn")
        assert "slow__echo" in {t["name"] for t in server.requests[0]["tools"]}
