"""`rivulet resume`'s start-up picker has the /resume picker's search field (issue 40):
what is typed asks the full-text index, the list becomes the sessions that say it; Enter
opens the one picked at its hit's turn, which the chat then shows; Esc empties the field,
then closes the picker."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from textual.widgets import Input

from rivulet.app.boot import Ready
from rivulet.app.picker import Picked, PickerScreen, SessionPicker
from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.store.session import SessionWriter, list_sessions, load_session
from rivulet.core.tools.router import tool_settings
from rivulet.core.turn.history import History

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py (sessions: its _sessions_in_tmp)


def two_sessions(folder: Path) -> Path:
    """Two long sessions; only the second's turn 3 answer says "wildebeest". Its file."""
    for name in ("other", "wanted"):
        writer, meta = SessionWriter.create(model="m", base_url="u", directory=folder)
        history = History(observers=[writer.observe])
        for n in range(1, 21):
            said = "the wildebeest" if (name, n) == ("wanted", 3) else "no gnu here"
            history.append(it.user_message(f"question {n:02d} of {name}"), key=f"user-{n}")
            history.append({"id": f"m{n}", "type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": f"Answer {n:02d} of {name}: {said}" + "\n\na paragraph" * 12}]},
                key=f"m{n}")
        writer.close()
    assert meta.path is not None
    return meta.path


def shown(picker: SessionPicker) -> list[str]:
    screen = picker.screen
    return [c.label for c in screen.shown] if isinstance(screen, PickerScreen) else []


async def test_typing_lists_the_one_session_that_says_it_and_enter_opens_it_at_that_turn(tmp_path):
    wanted = two_sessions(tmp_path / "sessions")  # (tests/conftest.py's RIVULET_SESSIONS_DIR)
    picker = SessionPicker(list_sessions(tmp_path / "sessions"))
    async with picker.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(shown(picker)) == 2, "both sessions listed")
        await pilot.press(*"wildebeest")
        await until(pilot, lambda: len(shown(picker)) == 1, "the one session that says it")
        assert "«wildebeest»" in shown(picker)[0]
        await pilot.press("enter")
    assert picker.return_value == Picked(wanted, 3)


async def test_esc_empties_the_search_field_then_closes_the_picker(tmp_path):
    two_sessions(tmp_path / "sessions")
    picker = SessionPicker(list_sessions(tmp_path / "sessions"))
    async with picker.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(shown(picker)) == 2, "both sessions listed")
        await pilot.press(*"wildebeest")
        await until(pilot, lambda: len(shown(picker)) == 1, "the one session that says it")
        await pilot.press("escape")
        await until(pilot, lambda: len(shown(picker)) == 2, "every session again")
        assert picker.is_running and picker.screen.query_one(Input).value == ""
        await pilot.press("escape")
    assert picker.return_value is None


def top_rows(app: RivuletApp, rows: int) -> str:
    strips = app.screen._compositor.render_strips()
    y = app._transcript.region.y
    return "\n".join(strip.text for strip in strips[y:y + rows])


async def test_the_chat_opens_a_picked_hit_at_its_turn(tmp_path):
    """What the picker's Enter on a hit gives the chat (Ready.turn): that turn at the top,
    not the session's end."""
    wanted = two_sessions(tmp_path / "sessions")
    s = settings(workspace=str(tmp_path), shell_tool=False, save_sessions=False)
    app = RivuletApp.from_ready(Ready(s, GatedServer([]).transport(), tool_settings(s),
                                      session=load_session(wanted), turn=3))
    app.remember_theme = False
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "question 03 of wanted" in top_rows(app, 2), "turn 3 at the top")
