"""Each slash command, driven through Pilot: typed in the composer, run instead of sent."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.app.tui import RivuletApp
from rivulet.core.protocol.models import ModelInfo, ModelList
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.core.tools.approval import ApprovalPolicy
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer
from rivulet.widgets.dialogs import DiffScreen
from rivulet.widgets.entries import TranscriptEntry, UserEntry
from rivulet.widgets.inspector import InspectorScreen
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py (sessions: its _sessions_in_tmp)


def answer(text: str, rid: str = "r1", usage: dict | None = None) -> list[str]:
    return [created(rid), *message_events(f"m_{rid}", text), completed([message(f"m_{rid}", text)], rid, usage)]


async def command(pilot, text: str) -> None:
    """Type a command line (the popup may be open) and press Enter."""
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    composer.move_cursor(composer.document.end)
    await pilot.press("enter")
    await until(pilot, lambda: composer.text != text or toasts(pilot.app), "the command to be taken")


async def send(pilot, text: str, server: GatedServer) -> None:
    before = len(server.requests)
    app = pilot.app
    app.query_one(Composer).load_text(text)
    await pilot.press("enter")
    await until(pilot, lambda: len(server.requests) > before and app.turn_worker is not None
                and not app.turn_worker.is_running, "the turn to end")


def notes(app) -> list[str]:
    return [str(w.render()) for w in app.query(".command-note")]


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def with_session(server: GatedServer, tmp_path, workspace=None, **kw) -> RivuletApp:
    s = settings(model="gpt-5.1-codex", workspace=str(workspace) if workspace else None)
    writer = LazySessionWriter(model=s.model, base_url=s.base_url, directory=tmp_path / "sessions")
    return RivuletApp(s, server.transport(), remember_theme=False, session_writer=writer, **kw)


def agent_tools(tmp_path) -> AgentTools:
    return AgentTools(ToolSettings(workspace=tmp_path, sandbox="workspace-write"), ApprovalPolicy("ask"))


# ---- models and effort ------------------------------------------------------------------


async def test_model_picker_lists_the_servers_models_and_switches_the_next_request(monkeypatch):
    async def fake_list(settings, *a, **kw):
        return ModelList([ModelInfo("gpt-5.1-codex", 400_000), ModelInfo("gpt-5-mini", 100_000)], "server")

    monkeypatch.setattr("rivulet.app.commands.model.list_models", fake_list)
    server = GatedServer(answer("one", "r1", {"input_tokens": 40_000, "output_tokens": 10_000,
                                              "total_tokens": 50_000}), answer("two", "r2"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "first", server)
        await command(pilot, "/model")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the model picker")
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.settings.model == "gpt-5-mini", "the switch")
        status = app.query_one(StatusLine)
        assert status.model == "gpt-5-mini" and status.window == 100_000
        assert "50% context left" in str(status.render())  # 50k of the new model's 100k
        assert any("Model: gpt-5-mini (was gpt-5.1-codex)" in n for n in notes(app))
        assert str(app.query_one("#banner").render()).endswith(" · gpt-5-mini")
        await send(pilot, "second", server)
        assert [r["model"] for r in server.requests] == ["gpt-5.1-codex", "gpt-5-mini"]


async def test_model_with_an_argument_switches_at_once_and_a_failed_list_is_one_line(monkeypatch):
    from rivulet.core.protocol.models import ModelsError

    async def failing(settings, *a, **kw):
        raise ModelsError("http://x/v1/models: HTTP 404: not found; set `models` in the config file")

    monkeypatch.setattr("rivulet.app.commands.model.list_models", failing)
    server = GatedServer(answer("ok"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/model")
        await until(pilot, lambda: any("Cannot list models" in t for t in toasts(app)), "the error")
        assert not isinstance(app.screen, ChoiceScreen) and app.settings.model == "gpt-5.1-codex"
        await command(pilot, "/model o3")
        await until(pilot, lambda: app.settings.model == "o3", "the switch")
        await send(pilot, "hi", server)
        assert server.requests[-1]["model"] == "o3"
        assert app.query_one(StatusLine).window == 200_000  # from core's table


async def test_effort_with_an_argument_sets_reasoning_effort_of_the_next_request():
    server = GatedServer(answer("ok"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/effort high")
        await until(pilot, lambda: app.settings.reasoning_effort == "high", "effort high")
        assert "gpt-5.1-codex high" in str(app.query_one(StatusLine).render())
        await command(pilot, "/effort extreme")
        await until(pilot, lambda: any("Unknown effort" in t for t in toasts(app)), "the refusal")
        assert app.settings.reasoning_effort == "high"
        await send(pilot, "hi", server)
        assert server.requests[-1]["reasoning"]["effort"] == "high"
        await command(pilot, "/effort default")
        await until(pilot, lambda: app.settings.reasoning_effort is None, "effort unset")
        await send(pilot, "again", server)
        assert "effort" not in server.requests[-1].get("reasoning", {})


# ---- conversations --------------------------------------------------------------------


async def test_new_starts_over_and_keeps_the_old_session_file(tmp_path):
    server = GatedServer(answer("one"), answer("two", "r2"))
    app = with_session(server, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "remember me", server)
        old = app.session_writer.path
        assert old is not None and old.exists()
        await command(pilot, "/new")
        await until(pilot, lambda: not app.conversation.history.entries, "a fresh conversation")
        assert not [w for w in app.query_one(Transcript).children if isinstance(w, TranscriptEntry)]
        assert any(f"rivulet resume {old.stem}" in n for n in notes(app))
        await send(pilot, "fresh", server)
        assert [m["content"][0]["text"] for m in server.requests[-1]["input"]] == ["fresh"]
        assert app.session_writer.path != old and "remember me" in old.read_text()


async def test_resume_by_id_brings_a_saved_conversation_back(tmp_path):
    server = GatedServer(answer("one"), answer("two", "r2"))
    app = with_session(server, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "the old question", server)
        old = app.session_writer.path
        await command(pilot, "/new")
        await until(pilot, lambda: not app.conversation.history.entries, "a fresh conversation")
        await command(pilot, "/sessions")
        await until(pilot, lambda: any(old.stem in n for n in notes(app)), "the session listed")
        await command(pilot, f"/resume {old.stem}")
        await until(pilot, lambda: len(app.conversation.history.entries) == 2, "the resumed history")
        await until(pilot, lambda: app.query(UserEntry), "the rebuilt transcript")
        assert "the old question" in str(app.query_one(UserEntry).item)
        await send(pilot, "go on", server)
        assert [i.get("role") for i in server.requests[-1]["input"]] == ["user", "assistant", "user"]


async def test_resume_without_an_argument_picks_from_a_list(tmp_path):
    server = GatedServer(answer("one"))
    app = with_session(server, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "pick me later", server)
        await command(pilot, "/new")
        await until(pilot, lambda: not app.conversation.history.entries, "a fresh conversation")
        await command(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the session picker")
        await pilot.press("enter")
        await until(pilot, lambda: len(app.conversation.history.entries) == 2, "the resumed history")


async def test_compact_summarises_older_turns_and_the_next_request_is_smaller():
    long = "x" * 3000
    turns = [answer(f"{long} answer {n}", f"r{n}") for n in range(5)]
    summary = answer("SUMMARY: the user asked three things", "rs")
    server = GatedServer(*turns, summary, answer("after", "r9"))
    app = make_app(server)
    app.settings.compaction = "summary"
    async with app.run_test(size=(100, 40)) as pilot:
        for n in range(5):  # the summary replaces all but the last two turns
            await send(pilot, f"question {n}", server)
        before = server.requests[-1]
        await command(pilot, "/compact")
        await until(pilot, lambda: app.conversation.history.compactions, "the compaction")
        await until(pilot, lambda: any("Compacted" in n for n in notes(app)), "the result note")
        assert server.requests[-1]["input"][-1]["content"][0]["text"].startswith("Compact this conversation")
        await send(pilot, "next", server)
        after = server.requests[-1]
        assert len(str(after["input"])) < len(str(before["input"])) - 2000
        assert [i["role"] for i in after["input"]] == ["user", "user", "assistant", "user", "assistant", "user"]
        assert "SUMMARY: the user asked three things" in after["input"][0]["content"][0]["text"]
        await command(pilot, "/inspect")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        compacted = [e.item for e in app.screen.shown if e.item.get("type") == "compacted"]
        assert len(compacted) == len(app.conversation.history.compactions[0].replaced) > 0


async def test_compact_of_an_empty_conversation_says_why_and_changes_nothing():
    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/compact")
        await until(pilot, lambda: any("nothing to compact" in t for t in toasts(app)), "the refusal")
        assert app.query_one(StatusLine).state == "idle"


# ---- views and outputs ------------------------------------------------------------------


async def test_export_writes_the_session_beside_its_file(tmp_path):
    server = GatedServer(answer("exported answer"))
    app = with_session(server, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "export this", server)
        await command(pilot, "/export md")
        out = app.session_writer.path.with_suffix(".md")
        await until(pilot, out.exists, "the Markdown file")
        assert "exported answer" in out.read_text()
        await command(pilot, "/export")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the format picker")
        await pilot.press("down", "enter")
        await until(pilot, app.session_writer.path.with_suffix(".json").exists, "the JSON file")


async def test_copy_takes_the_answer_or_a_code_block(monkeypatch):
    copied = []
    monkeypatch.setattr("rivulet.app.copying.system_copy", lambda text: copied.append(text) or "test-clipboard")
    server = GatedServer(answer("Here:\n\n```py\nprint(1)\n```\n"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/copy")
        await until(pilot, lambda: any("Nothing to copy" in t for t in toasts(app)), "nothing yet")
        await send(pilot, "code please", server)
        await command(pilot, "/copy 1")
        await until(pilot, lambda: copied, "the copy")
        assert copied == ["print(1)\n"]
        await command(pilot, "/copy")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the copy picker")
        await pilot.press("enter")
        await until(pilot, lambda: len(copied) == 2, "the answer copied")
        assert copied[1].startswith("Here:")


async def test_diff_and_inspect_open_their_views():
    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/diff")
        await until(pilot, lambda: isinstance(app.screen, DiffScreen), "the diff")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DiffScreen), "closed")
        await command(pilot, "/inspect")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, InspectorScreen), "closed")
        await command(pilot, "/mcp")
        await until(pilot, lambda: type(app.screen).__name__ == "McpScreen", "the MCP servers view")


async def test_theme_by_name_and_a_wrong_name_is_refused():
    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/theme rivulet-light")
        await until(pilot, lambda: app.theme == "rivulet-light", "the light theme")
        await command(pilot, "/theme [bold]nope")
        await until(pilot, lambda: any("is not one of" in t for t in toasts(app)), "the refusal")
        assert app.theme == "rivulet-light"


async def test_approval_and_sandbox_switch_the_tools(tmp_path):
    tools = agent_tools(tmp_path)
    app = make_app(GatedServer(answer("x")), tools=tools)
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/approval auto-edit")
        await until(pilot, lambda: tools.approvals.policy == "auto-edit", "the policy")
        assert app.settings.approval == "auto-edit"
        await command(pilot, "/sandbox")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the sandbox picker")
        await pilot.press("down", "enter")  # workspace-write -> read-only
        await until(pilot, lambda: tools.sandbox.mode == "read-only", "read-only")
        assert app.query_one(StatusLine).sandbox == tools.sandbox.describe()


async def test_status_names_model_server_session_context_and_instructions(tmp_path):
    server = GatedServer(answer("x", usage={"input_tokens": 100_000, "output_tokens": 8_800,
                                            "total_tokens": 108_800}))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("be brief\n")
    app = with_session(server, tmp_path, workspace=repo, tools=agent_tools(repo))
    async with app.run_test(size=(140, 50)) as pilot:
        await send(pilot, "hi", server)
        await command(pilot, "/status")
        await until(pilot, lambda: notes(app), "the status note")
        text = notes(app)[-1]
        assert "gpt-5.1-codex" in text and "http://test.invalid/v1" in text
        assert str(app.session_writer.path) in text
        assert "108,800 of 272,000 tokens, 60% left" in text
        assert "sandbox" in text
        assert f"AGENTS.md      {repo / 'AGENTS.md'} · 9 bytes" in text
        assert "60% context left" in str(app.query_one(StatusLine).render())


async def test_status_names_a_refused_agents_md_in_one_line(tmp_path):
    server = GatedServer(answer("x"))
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "AGENTS.md").write_text("be brief\n")
    (repo / "sub" / "AGENTS.md").symlink_to("/proc/self/environ")
    app = with_session(server, tmp_path, workspace=repo / "sub", tools=agent_tools(repo / "sub"))
    async with app.run_test(size=(140, 50)) as pilot:
        await command(pilot, "/status")
        await until(pilot, lambda: notes(app), "the status note")
        text = notes(app)[-1]
        assert f"AGENTS.md      {repo / 'AGENTS.md'} · 9 bytes" in text
        assert f"refused: {repo / 'sub' / 'AGENTS.md'} not read: it is a link to outside the workspace" in text


async def test_help_lists_every_command_with_its_description():
    from rivulet.app.commands.registry import slash_commands

    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(120, 60)) as pilot:
        await command(pilot, "/help")
        await until(pilot, lambda: notes(app), "the help note")
        text = notes(app)[-1]
        for cmd in slash_commands(app.services):
            assert f"/{cmd.slash}" in text and cmd.help in text


async def test_quit_leaves():
    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/quit")
        await until(pilot, lambda: not app.is_running, "the app to end")


# ---- what is sent and what is not ----------------------------------------------------------


async def test_unknown_command_is_not_sent_and_comes_back_to_the_composer():
    server = GatedServer(answer("x"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await command(pilot, "/modle gpt-5")
        await until(pilot, lambda: any("Unknown command /modle (did you mean /model?)" in t
                                       for t in toasts(app)), "the one-line refusal")
        assert server.requests == []
        assert app.query_one(Composer).text == "/modle gpt-5"


async def test_double_slash_sends_the_text_with_one_slash():
    server = GatedServer(answer("x"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "//etc/hosts is a file", server)
        assert server.requests[-1]["input"][-1]["content"][0]["text"] == "/etc/hosts is a file"


async def test_a_command_runs_during_a_turn_and_a_prompt_does_not():
    server = GatedServer(answer("slow"), gate_at={0: 2})
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        app.query_one(Composer).load_text("go")
        await pilot.press("enter")
        await server.reached.wait()
        await command(pilot, "/effort low")
        await until(pilot, lambda: app.settings.reasoning_effort == "low", "effort changed mid-turn")
        server.release()


async def test_the_palette_runs_the_same_commands(monkeypatch):
    from textual.command import CommandPalette

    from rivulet.app.commands.registry import slash_commands

    async def listing(settings, *a, **kw):
        return ModelList([ModelInfo("gpt-5.1-codex")], "server")

    monkeypatch.setattr("rivulet.app.commands.model.list_models", listing)
    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"switch model")
        await until(pilot, lambda: "Switch model" in str(
            app.screen.query_one("CommandList").get_option_at_index(0).prompt), "the model command in the palette")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the model picker, as /model opens it")
        titles = [c.title for c in slash_commands(app.services)]
        assert len(titles) == len(set(titles)) == 29  # 17; /profile, /init, /undo, /redo, /transcript; issue 27's six; /search


async def test_after_a_model_switch_the_old_models_encrypted_reasoning_is_not_sent():
    from helpers.streams import reasoning, reasoning_events

    first = [created("r1"), *reasoning_events("rs_1", "thinking", 0, encrypted="gAAA-secret-blob"),
             *message_events("m_r1", "one", 1), completed([reasoning("rs_1", "thinking", "gAAA-secret-blob"),
                                                            message("m_r1", "one")], "r1")]
    server = GatedServer(first, answer("two", "r2"))
    app = make_app(server)
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "first", server)
        await command(pilot, "/model o3")
        await until(pilot, lambda: any("1 reasoning item encrypted by an earlier model" in n for n in notes(app)),
                    "the note about the reasoning")
        await send(pilot, "second", server)
        sent = server.requests[-1]
        assert sent["model"] == "o3"
        assert [i["type"] for i in sent["input"]] == ["message", "message", "message"]
        assert "gAAA-secret-blob" not in str(sent)
