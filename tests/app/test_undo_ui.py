"""Issue 26 in the chat, through Pilot: /undo shows the diff and the commands' warning and
asks, /redo re-applies, Esc Esc rewinds the conversation and the files, ctrl+t lists the
turns with an undo key. Each restore is recorded in the session file."""

from __future__ import annotations

import json

from helpers.calls import fn_call
from helpers.mock_api import settings
from helpers.streams import completed, created, ev, message, message_events
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.tools.router import ToolSettings
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.dialogs import ApprovalScreen
from rivulet.widgets.turn_list import TurnListScreen
from rivulet.widgets.undo_dialog import UndoScreen


def shell_turn(command: str, n: int) -> list[str]:
    call = fn_call(f"fc_{n}", f"call_{n}", "shell", {"command": command, "workdir": None, "timeout_ms": None,
                                                     "justification": None})
    return [created(f"r{n}"), ev("response.output_item.added", output_index=0, item={**call, "arguments": ""}),
            ev("response.function_call_arguments.delta", item_id=f"fc_{n}", output_index=0, delta=call["arguments"]),
            ev("response.output_item.done", output_index=0, item=call), completed([call], f"r{n}")]


def said(text: str, n: int) -> list[str]:
    return [created(f"a{n}"), *message_events(f"m{n}", text), completed([message(f"m{n}", text)], f"a{n}")]


def make(server: GatedServer, ws, tmp_path) -> tuple[RivuletApp, LazySessionWriter]:
    writer = LazySessionWriter(model="gpt-5.1-codex", base_url="http://test.invalid/v1", directory=tmp_path / "s")
    app = RivuletApp(settings(model="gpt-5.1-codex", approval="ask", workspace=str(ws)), server.transport(),
                     tool_settings=ToolSettings(workspace=ws), remember_theme=False, session_writer=writer)
    return app, writer


async def run_turn(app, pilot, server, prompt: str, requests: int) -> None:
    await pilot.press(*prompt, "enter")
    await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the command's question")
    await pilot.press("y")
    await until(pilot, lambda: len(server.requests) == requests and not app.turn_worker.is_running, "the turn")


async def slash(app, pilot, word: str) -> None:
    app.query_one(Composer).load_text(word)
    await pilot.press("enter")


def notice(app: RivuletApp, start: str) -> bool:
    return any(str(n.message).startswith(start) for n in app._notifications)


async def test_undo_shows_the_diff_and_the_commands_then_redo(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("old\n")
    server = GatedServer(shell_turn("echo new > notes.md && echo hi > made.txt && curl -s x.invalid || true", 1),
                         said("Done.", 1))
    app, writer = make(server, ws, tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await run_turn(app, pilot, server, "change it", 2)
        assert (ws / "notes.md").read_text() == "new\n" and (ws / "made.txt").exists()
        await slash(app, pilot, "/undo")
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo question")
        lines = [str(s.render()) for s in app.screen.query(".undo-line")]
        assert lines[0] == "Undo the files of turn 1: 2 paths to put back"
        assert any("curl -s x.invalid" in line and "over the network cannot be undone" in line for line in lines)
        diff = str(app.screen.query_one("#undo-diff").render())
        assert "-new" in diff and "+old" in diff and "--- a/made.txt" in diff
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, UndoScreen) and not (ws / "made.txt").exists(),
                    "the files back")
        # The files are back before the restore is recorded in the session file; its notice follows both.
        await until(pilot, lambda: notice(app, "Undid turn 1"), "the undo's notice")
        assert (ws / "notes.md").read_text() == "old\n"
        await slash(app, pilot, "/undo")  # nothing left to undo: said, nothing asked
        await slash(app, pilot, "/redo")
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the redo question")
        await pilot.press("y")
        await until(pilot, lambda: (ws / "made.txt").exists(), "the files forward again")
        await until(pilot, lambda: notice(app, "Redid turn 1"), "the redo's notice")
        assert (ws / "notes.md").read_text() == "new\n"
    records = [json.loads(line) for line in writer.path.read_text().splitlines()]
    restores = [r for r in records if r["type"] == "restore"]
    assert [(r["direction"], r["turns"], sorted(r["files"])) for r in restores] == [
        ("undo", [1], ["made.txt", "notes.md"]), ("redo", [1], ["made.txt", "notes.md"])]


async def test_undo_leaves_a_file_changed_since_unless_told(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    server = GatedServer(shell_turn("echo a > a.txt && echo b > b.txt", 1), said("ok", 1))
    app, _ = make(server, ws, tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await run_turn(app, pilot, server, "go", 2)
        (ws / "a.txt").write_text("mine\n")
        await slash(app, pilot, "/undo")
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo question")
        lines = [str(s.render()) for s in app.screen.query(".undo-line")]
        assert "Changed since (left alone unless you choose to overwrite): a.txt (changed since)" in lines
        await pilot.press("y")
        await until(pilot, lambda: not (ws / "b.txt").exists(), "b.txt removed")
        assert (ws / "a.txt").read_text() == "mine\n"


async def test_esc_esc_rewinds_the_conversation_and_the_files(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    server = GatedServer(shell_turn("echo 1 > one.txt", 1), said("one", 1), shell_turn("echo 2 > two.txt", 2),
                         said("two", 2))
    app, writer = make(server, ws, tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await run_turn(app, pilot, server, "first", 2)
        await run_turn(app, pilot, server, "second", 4)
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "conversation only, or with files?")
        assert [c.value for c in app.screen.choices] == ["files", "conversation"] and app.screen.current == "files"
        await pilot.press("enter")  # the default: conversation and files
        await until(pilot, lambda: app.query_one(Composer).text == "second", "the draft")
        await until(pilot, lambda: not (ws / "two.txt").exists(), "the second turn's file gone")
        assert (ws / "one.txt").read_text() == "1\n"
        assert [i["role"] for i in app.conversation.history.items if i.get("role")] == ["user", "assistant"]
    records = [json.loads(line) for line in writer.path.read_text().splitlines()]
    assert [r["turns"] for r in records if r["type"] == "restore"] == [[2]]


async def test_ctrl_t_lists_the_turns_and_u_undoes_back_to_one(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    server = GatedServer(shell_turn("echo 1 > one.txt", 1), said("one", 1), shell_turn("echo 2 > two.txt", 2),
                         said("two", 2))
    app, _ = make(server, ws, tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        await run_turn(app, pilot, server, "first", 2)
        await run_turn(app, pilot, server, "second", 4)
        await pilot.press("ctrl+t")
        await until(pilot, lambda: isinstance(app.screen, TurnListScreen), "the list of turns")
        assert [r.label for r in app.screen.rows] == ["Turn 2 · 1 path", "Turn 1 · 1 path"]
        assert "+++ b/two.txt" in str(app.screen.query_one("#turn-diff").render())
        await pilot.press("down")
        await until(pilot, lambda: "+++ b/one.txt" in str(app.screen.query_one("#turn-diff").render()),
                    "turn 1's diff")
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo question")
        await pilot.press("y")
        await until(pilot, lambda: not (ws / "one.txt").exists() and not (ws / "two.txt").exists(), "both undone")
