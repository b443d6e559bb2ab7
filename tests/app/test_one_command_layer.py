"""Issue 37.3: one command layer serves the chat and plain mode. The commands are one
registry (app/commands/registry.py); each answers with a rendering-neutral result (lines,
a choice list, a notice, an action) that each front end renders its own way, so `/help`
lists the same commands in both, and plain mode runs the chat's commands."""

from __future__ import annotations

import io
import re

import pytest
from helpers.mock_api import settings, transport_for
from helpers.tui import GatedServer, make_app, until
from test_slash_commands import answer, command, notes

from rivulet.app.plain.chat import PlainChat
from rivulet.app.plain.commands import QUIT, handle
from rivulet.app.plain.printer import PlainPrinter
from rivulet.core.assembly import FrontEnd, Ground, open_conversation
from rivulet.core.tools.router import ToolSettings
from rivulet.core.turn.bus import EventBus

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py

WORD = re.compile(r"^(/[a-z][\w:-]*)", re.MULTILINE)


class Plain:
    """A plain chat on a mock server, its printed lines in `out`, its questions answered from `answers`."""

    def __init__(self, tmp_path, *answers: str) -> None:
        def handler(request):
            raise AssertionError("no request is sent by these commands")

        s = settings(save_sessions=False, model="gpt-5.1-codex")
        self.bus = EventBus()
        ground = Ground(settings=s, tool_settings=ToolSettings(workspace=tmp_path), transport=transport_for(handler))
        self.engine = open_conversation(ground, FrontEnd(name="plain", bus=self.bus))
        self.out = io.StringIO()
        self.answers = list(answers)
        self.asked: list[str] = []
        self.chat = PlainChat(self.engine, PlainPrinter(self.out), None, s.endpoint.safe,  # type: ignore[arg-type]
                              ask=self.ask)

    async def ask(self, prompt: str) -> str:
        self.asked.append(prompt)
        return self.answers.pop(0) if self.answers else ""

    async def run(self, text: str) -> object:
        return await handle(self.chat, text)

    def printed(self) -> str:
        return self.out.getvalue()


async def test_help_lists_the_same_commands_in_the_chat_and_in_plain_mode(tmp_path):
    plain = Plain(tmp_path)
    await plain.run("/help")
    in_plain = WORD.findall(plain.printed())
    app = make_app(GatedServer(answer("x")))
    async with app.run_test(size=(120, 60)) as pilot:
        await command(pilot, "/help")
        await until(pilot, lambda: notes(app), "the help note")
        in_chat = WORD.findall(notes(app)[-1])
    assert len(in_chat) >= 28 and in_plain == in_chat


async def test_plain_mode_runs_the_chats_commands(tmp_path):
    plain = Plain(tmp_path)
    assert await plain.run("/verbosity low") is None
    assert plain.engine.settings.verbosity == "low"
    await plain.run("/cost")
    await plain.run("/sessions")
    await plain.run("/status")
    text = plain.printed()
    assert "Verbosity (text.verbosity): low, from the next request on" in text
    assert "cost           nothing sent yet" in text
    assert "/resume ID (or a unique prefix) opens one" in text
    assert "model          gpt-5.1-codex" in text and f"workspace      {tmp_path}" in text
    assert await plain.run("/quit") is QUIT


async def test_a_choice_list_is_numbered_in_plain_mode_and_the_answer_runs_it(tmp_path):
    plain = Plain(tmp_path, "2")
    assert await plain.run("/effort") is None
    assert plain.engine.settings.reasoning_effort == "low"  # the second of minimal, low, medium, high, default
    assert " 1 minimal" in plain.printed() and plain.asked
    assert "Reasoning effort: low, from the next request on" in plain.printed()


async def test_a_choice_list_left_unanswered_changes_nothing(tmp_path):
    plain = Plain(tmp_path)
    await plain.run("/approval")
    assert plain.engine.settings.approval == settings().approval
    assert "/approval POLICY picks one" in plain.printed()


async def test_a_view_of_the_full_screen_chat_is_said_in_one_line_in_plain_mode(tmp_path):
    plain = Plain(tmp_path)
    await plain.run("/inspect")
    await plain.run("/theme")
    lines = plain.printed().splitlines()
    assert len(lines) == 2 and all("full-screen chat" in line for line in lines)
