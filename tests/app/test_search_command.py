"""/search QUERY in the chat (issue 40): the saved sessions that said it, as a choice list
with the match marked; Enter resumes the one picked; a bad query or no hit is one toast."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.core.store.lazy_session import LazySessionWriter
from rivulet.widgets.choice import ChoiceScreen
from rivulet.widgets.composer import Composer

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py (sessions: its _sessions_in_tmp)


def answer(text: str, rid: str) -> list[str]:
    return [created(rid), *message_events(f"m_{rid}", text), completed([message(f"m_{rid}", text)], rid)]


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def typed(pilot, text: str) -> None:
    composer = pilot.app.query_one(Composer)
    composer.load_text(text)
    composer.move_cursor(composer.document.end)
    await pilot.press("enter")


async def test_search_lists_the_sessions_that_said_it_and_enter_resumes_one(tmp_path):
    server = GatedServer(answer("Kumquats are citrus.", "r1"), answer("Plums are not.", "r2"))
    s = settings(model="gpt-5.1-codex")
    writer = LazySessionWriter(model=s.model, base_url=s.base_url, directory=tmp_path / "sessions")
    app = RivuletApp(s, server.transport(), remember_theme=False, session_writer=writer)
    async with app.run_test(size=(100, 30)) as pilot:
        await typed(pilot, "tell me about kumquats")
        await until(pilot, lambda: len(server.requests) == 1 and not app.turn_worker.is_running, "turn 1")
        old = app.session_writer.path
        await typed(pilot, "/new")
        await until(pilot, lambda: not app.conversation.history.entries, "a fresh conversation")
        await typed(pilot, "and plums?")
        await until(pilot, lambda: len(server.requests) == 2 and not app.turn_worker.is_running, "turn 2")
        await typed(pilot, '/search "walrus')
        await until(pilot, lambda: any("not a search query" in t for t in toasts(app)), "the bad query said")
        await typed(pilot, "/search walrus")
        await until(pilot, lambda: any("No saved session says walrus" in t for t in toasts(app)), "no hit said")
        await typed(pilot, "/search kumquats")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the hits")
        [choice] = app.screen.choices
        assert choice.value == str(old) and choice.label == "«Kumquats» are citrus."
        assert f" · turn 1 · {old.stem} · " in choice.help
        await pilot.press("enter")
        await until(pilot, lambda: app.session_writer.path == old and len(app.conversation.history.entries) == 2,
                    "the session resumed")
