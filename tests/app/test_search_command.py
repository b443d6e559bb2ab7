"""/search QUERY in the chat (issue 40): the saved sessions that said it, as a choice list
with the match marked; Enter resumes the one picked; a bad query or no hit is one toast."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, until
from textual.widgets import Input

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


def top_rows(app, rows: int) -> str:
    """The transcript's first rows on screen."""
    strips = app.screen._compositor.render_strips()
    y = app._transcript.region.y
    return "\n".join(strip.text for strip in strips[y:y + rows])


async def test_the_session_resumes_with_the_turn_of_the_hit_at_the_top(tmp_path):
    """An old turn (among the frozen lines) and a recent one (an entry widget) alike."""
    from rivulet.core import items as it
    from rivulet.core.store.session import SessionWriter
    from rivulet.core.turn.history import History

    folder = tmp_path / "sessions"  # (tests/conftest.py's RIVULET_SESSIONS_DIR)
    writer, _ = SessionWriter.create(model="gpt-5.1-codex", base_url="u", directory=folder)
    history = History(observers=[writer.observe])
    for n in range(1, 31):
        word = {3: "zebu", 27: "yak"}.get(n, "cattle")
        history.append(it.user_message(f"question {n:02d} about the {word}"), key=f"user-{n}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": f"Answer {n:02d}:" + "\n\na paragraph" * 12}]}, key=f"m{n}")
    writer.close()
    app = RivuletApp(settings(model="gpt-5.1-codex"), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        # Turn 3 among the frozen lines of old entries, turn 27 an entry widget (the last few):
        # both off the screen when the session comes back at its end.
        for word, turn in (("zebu", 3), ("yak", 27)):
            await typed(pilot, f"/search {word}")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the hits")
            await pilot.press("enter")
            await until(pilot, lambda t=turn, w=word: f"question {t:02d} about the {w}" in top_rows(app, 2),
                        f"turn {turn} at the top")
            await typed(pilot, "/new")
            await until(pilot, lambda: not app.conversation.history.entries, "a fresh conversation")


async def test_the_resume_pickers_search_field_finds_an_old_answer_and_enter_resumes_at_its_turn(tmp_path):
    """/resume's own search field asks the full-text index, not the rows' text: a word said
    only in an old answer leaves its session the one row; Enter resumes it at that turn."""
    from rivulet.core import items as it
    from rivulet.core.store.session import SessionWriter
    from rivulet.core.turn.history import History

    folder = tmp_path / "sessions"  # (tests/conftest.py's RIVULET_SESSIONS_DIR)
    for name, said in (("other", "no gnu here"), ("wanted", "")):
        writer, meta = SessionWriter.create(model="gpt-5.1-codex", base_url="u", directory=folder)
        history = History(observers=[writer.observe])
        for n in range(1, 21):
            answer_text = f"Answer {n:02d} of {name}: " + ("the wildebeest" if (name, n) == ("wanted", 3) else said)
            history.append(it.user_message(f"question {n:02d} of {name}"), key=f"user-{n}")
            history.append({"id": f"m{n}", "type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": answer_text + "\n\na paragraph" * 12}]}, key=f"m{n}")
        writer.close()
    wanted = meta.path
    app = RivuletApp(settings(model="gpt-5.1-codex"), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await typed(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen) and len(app.screen.shown) == 2, "the picker")
        await pilot.press(*"wildebeest")
        await until(pilot, lambda: len(app.screen.shown) == 1, "the one session that said it")
        [row] = app.screen.shown
        assert "«wildebeest»" in row.label and " · turn 3 · " in row.help
        await pilot.press("enter")
        await until(pilot, lambda: app.session_writer.path == wanted and "question 03 of wanted" in top_rows(app, 2),
                    "the session resumed at turn 3")
        await typed(pilot, "/resume")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the picker again")
        await pilot.press(*'"wild')  # a query FTS5 cannot read: one line, no row, no traceback
        await until(pilot, lambda: not app.screen.shown and "not a search query" in
                    str(app.screen.query_one("#choice-said").render()), "the bad query said")
        await pilot.press("escape")  # Esc empties the field first: every session listed again
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen) and app.screen.shown
                    and not app.screen.query_one(Input).value, "the field emptied")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen), "the picker closed")


@pytest.mark.parametrize("turns", [1, 3])
async def test_a_short_session_found_by_search_comes_back_whole_on_screen(tmp_path, turns):
    """A session that fits the view: resumed at its hit, every entry stays on screen (a
    released view that fits sat at a negative scroll, showing none of them)."""
    from rivulet.core import items as it
    from rivulet.core.store.session import SessionWriter
    from rivulet.core.turn.history import History

    writer, _ = SessionWriter.create(model="gpt-5.1-codex", base_url="u", directory=tmp_path / "sessions")
    history = History(observers=[writer.observe])
    for n in range(1, turns + 1):
        history.append(it.user_message(f"kumquat question {n}"), key=f"user-{n}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"Answer number {n}."}]}, key=f"m{n}")
    writer.close()
    app = RivuletApp(settings(model="gpt-5.1-codex"), GatedServer([]).transport(), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await typed(pilot, "/search kumquat")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the hits")
        await pilot.press("enter")
        await until(pilot, lambda: f"Answer number {turns}." in top_rows(app, 24)
                    and "kumquat question 1" in top_rows(app, 24), "the whole session on screen")
