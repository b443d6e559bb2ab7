"""Saved prompts, /init and `!cmd` in the chat: `/NAME ARGS` sends the filled-in prompt;
/help and the `/` popup list them (the repository's marked); a clash with a built-in is
said; `!cmd` shows its output and sends it with the next message."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.tui import GatedServer, follow_up_payloads, settled, until

from rivulet.app.tui import RivuletApp
from rivulet.core.tools.router import ToolSettings


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def chat(tmp_path, *answers: str) -> tuple[RivuletApp, GatedServer, object]:
    ws, mine = tmp_path / "ws", tmp_path / "prompts"
    (ws / ".rivulet" / "prompts").mkdir(parents=True)
    mine.mkdir()
    (mine / "review.md").write_text("---\ndescription: review a file\n---\nReview $1 carefully. ($ARGUMENTS)")
    (mine / "status.md").write_text("my own status prompt")
    (ws / ".rivulet" / "prompts" / "ship.md").write_text("Ship it")
    server = GatedServer(*(follow_up_payloads(a, f"r{n}") for n, a in enumerate(answers or ["ok"])))
    s = settings(model="gpt-5.1-codex", prompts_dir=str(mine), sandbox="off")
    app = RivuletApp(s, server.transport(), tool_settings=ToolSettings(workspace=ws), remember_theme=False)
    return app, server, ws


def last_user_text(request: dict) -> str:
    user = [i for i in request["input"] if i.get("role") == "user"][-1]
    return "".join(part.get("text", "") for part in user["content"])


def notes(app) -> str:
    return "\n".join(str(n.render()) for n in app.query(".command-note"))


async def test_a_saved_prompt_sends_its_text_with_the_arguments(tmp_path):
    app, server, _ = chat(tmp_path, "Reviewed.")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"/review core/x.py fast", "enter")
        await until(pilot, lambda: server.requests and settled(app), "the turn")
        assert last_user_text(server.requests[0]) == "Review core/x.py carefully. (core/x.py fast)"


async def test_help_lists_them_marked_and_a_clash_is_said(tmp_path):
    app, _, _ = chat(tmp_path)
    shown: list[str] = []
    async with app.run_test(size=(140, 50)) as pilot:
        original = app.notify
        app.notify = lambda message, **kw: (shown.append(str(message)), original(message, **kw))[1]
        await pilot.press(*"/help", "enter")
        await until(pilot, lambda: "/review" in notes(app), "/help")
        text = notes(app)
        assert "review a file (your prompt)" in text
        assert "/ship" in text and "(repository prompt)" in text
        assert "/prompts:status" in text and "/init" in text
        assert any("has the name of the built-in /status: run it as /prompts:status" in s for s in shown)


async def test_init_asks_the_model_for_agents_md(tmp_path):
    app, server, _ = chat(tmp_path, "Let me look.")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"/init", "enter")
        await until(pilot, lambda: server.requests and settled(app), "the turn")
        assert "Write an AGENTS.md file" in last_user_text(server.requests[0])


async def test_bang_runs_the_command_shows_it_and_sends_it_next(tmp_path):
    app, server, ws = chat(tmp_path, "I see it.")
    (ws / "data.txt").write_text("forty-two\n")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"!cat data.txt", "enter")
        await until(pilot, lambda: "forty-two" in notes(app), "the command's output")
        assert "$ cat data.txt" in notes(app) and not server.requests  # nothing sent yet
        await pilot.press(*"what is it?", "enter")
        await until(pilot, lambda: server.requests and settled(app), "the turn")
        sent = last_user_text(server.requests[0])
        assert "$ cat data.txt" in sent and "forty-two" in sent and sent.endswith("what is it?")


async def test_the_slash_popup_and_the_palette_offer_them(tmp_path):
    from rivulet.app.commands.registry import palette_commands
    from rivulet.widgets.completion import CompletionPopup

    app, _, _ = chat(tmp_path)
    async with app.run_test(size=(110, 40)) as pilot:
        popup = app.query_one(CompletionPopup)
        await pilot.press("/", "r", "e", "v")
        await until(pilot, lambda: popup.display and popup.entries, "the popup")
        assert popup.entries[0].label.startswith("/review")
        assert "(your prompt)" in popup.entries[0].help
        titles = [c.title for c in palette_commands(app.services)]  # what the palette (ctrl+p) lists
        assert "/review: review a file" in titles and "/ship: Ship it" in titles and "Write AGENTS.md" in titles
