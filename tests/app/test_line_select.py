"""Issue 38.4: transcript lines selected from the keyboard. alt+v starts at the lowest
line in view; Up/Down (k/j) move, Shift+Up/Down (K/J) extend, y, Enter or Ctrl+C copy
through the chat's copy (app/copying.py), Esc leaves. It reaches the old entries drawn as
lines of the frozen block as well as the entry widgets, and shows what is selected."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.store.session import Session, SessionMeta
from rivulet.core.turn.history import History
from rivulet.widgets.composer import Composer
from rivulet.widgets.frozen_entries import FrozenEntries
from rivulet.widgets.line_select import LineSelect

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def session(turns: int) -> Session:
    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 1}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"Answer {n}."}]}, "req-1", f"m{n}")
    return Session(SessionMeta("sel", 0, "/", "m", "u"), history)


def screen_text(app: RivuletApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def started(pilot, app: RivuletApp, monkeypatch, last: int = 4) -> list[str]:
    """The session shown, its oldest entries in the frozen block; what a copy sends."""
    monkeypatch.setattr("rivulet.app.copying.system_copy", lambda text: None)  # OSC 52, here recorded
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    await until(pilot, lambda: f"Answer {last}." in screen_text(app), "the session")
    frozen = app.query_one(FrozenEntries)
    assert [key for key, _, _ in frozen.entries][:2] == ["user-1", "m0"]  # turn 0 is lines (app/resume.py)
    return copied


async def test_lines_are_selected_across_old_and_new_entries_and_copied(monkeypatch):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session(5), remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        copied = await started(pilot, app, monkeypatch)
        await pilot.press("alt+v")
        select = app.query_one(LineSelect)
        assert select.active and app.focused is select and "esc leave" in screen_text(app)
        assert app.screen.get_selected_text() == "Answer 4."  # the lowest line in view
        await pilot.press(*"kkkk", *["up"] * 5)  # blank rows between entries are passed over
        assert app.screen.get_selected_text() == "question 0"  # an old entry's line
        assert app.query_one(FrozenEntries) in app.screen.selections  # drawn selected
        await pilot.press("J", "shift+down")
        assert app.screen.get_selected_text() == "question 0\nAnswer 0.\nquestion 1"  # lines and a widget
        await pilot.press("y")
        assert copied == ["question 0\nAnswer 0.\nquestion 1"]
        assert not select.active and app.focused is app.query_one(Composer) and not app.screen.selections
        assert any("Copied 3 lines" in n.message for n in app._notifications), [n.message for n in app._notifications]


async def test_enter_and_ctrl_c_copy_and_escape_leaves(monkeypatch):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session(5), remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        copied = await started(pilot, app, monkeypatch)
        await pilot.press("alt+v", "j", "shift+up", "enter")  # j at the bottom stays there
        await pilot.press("alt+v", "ctrl+c")
        assert copied == ["question 4\nAnswer 4.", "Answer 4."]
        await pilot.press("alt+v", "escape")
        assert not app.query_one(LineSelect).active and app.focused is app.query_one(Composer)
        assert not app.screen.selections and app.is_running  # Esc did nothing else
        await pilot.press(*"typing goes on")
        assert app.query_one(Composer).text == "typing goes on"


async def test_moving_up_reaches_old_entries_not_drawn_yet(monkeypatch):
    """The frozen block draws only a window of its entries: going up past it draws older
    ones, as scrolling does, and the selection goes on into them."""
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session(16), remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        copied = await started(pilot, app, monkeypatch, last=15)
        frozen = app.query_one(FrozenEntries)
        assert frozen.lo > 0  # the first entries are not drawn
        await pilot.press("alt+v")
        for _ in range(31):  # 32 lines of text, the lowest selected first
            await pilot.press("k")
        await until(pilot, lambda: app.screen.get_selected_text() == "question 0", "the first line")
        await pilot.press("J", "y")
        assert copied == ["question 0\nAnswer 0."]


async def test_selected_old_lines_stay_readable(monkeypatch):
    """The selection's foreground is "transparent" (Textual's default): drawn on the
    pre-rendered lines as a colour, it was the selection's background, and the selected
    text vanished. Its text keeps its own colour; the background is the selection's."""
    app = RivuletApp(settings(), GatedServer([]).transport(), session=session(5), remember_theme=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot, app, monkeypatch)
        await pilot.press("alt+v", *["k"] * 9)
        assert app.screen.get_selected_text() == "question 0"
        frozen = app.query_one(FrozenEntries)
        row = next(y for y in range(frozen.drawn_lines) if "question 0" in frozen.render_line(y).text)
        highlight = app.screen.get_component_rich_style("screen--selection").bgcolor
        cells = [s.style for s in frozen.render_line(row) if s.text.strip() and s.style is not None
                 and s.style.bgcolor == highlight]
        assert cells and all(style.color is not None and style.color != highlight for style in cells)
