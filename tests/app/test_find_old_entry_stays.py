"""An old entry that find (or Home) brought into view stays at the top of the view while
the screen settles and changes under it, until the user scrolls. A scroll made before
the moved window of old entries was laid out used to keep whatever position the layout
left it at (CI: find showed entries a screen below the match, 1 run in ~20)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from helpers.mock_api import settings
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.core import items as it
from rivulet.core.store.session import Session, SessionMeta
from rivulet.core.turn.history import History

FILLER = "several words that wrap differently at every width " * 3  # ~150 characters


def wordy_session(turns: int) -> Session:
    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n:04d}"), key=f"user-{n}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"Answer {n:04d}: {FILLER}"}]}, key=f"m{n}")
    return Session(SessionMeta("wordy", 0, "/", "m", "u"), history)


@asynccontextmanager
async def resumed() -> AsyncIterator[tuple[RivuletApp, Any]]:
    """The chat on a resumed 120-turn session, its last answer on screen."""
    app = RivuletApp(settings(), GatedServer([]).transport(), session=wordy_session(120), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Answer 0119" in "".join(s.text for s in app.screen._compositor.render_strips()),
                    "the resumed session at its end")
        yield app, pilot


def top_rows(app: RivuletApp, rows: int = 2) -> str:
    """The transcript's first rows on screen."""
    strips = app.screen._compositor.render_strips()
    y = app._transcript.region.y
    return "\n".join(strip.text for strip in strips[y:y + rows])


async def test_a_found_old_entry_stays_at_the_top_through_a_resize_until_the_user_scrolls():
    async with resumed() as (app, pilot):
        await pilot.press("ctrl+f", *"question 0017")
        await until(pilot, lambda: "question 0017" in top_rows(app), "the match at the top")
        # Narrower, every answer above the match wraps to more lines: the match stays put.
        await pilot.resize_terminal(60, 30)
        await until(pilot, lambda: app._transcript.size.width <= 60, "the resize laid out")
        await pilot.pause()
        assert "question 0017" in top_rows(app)
        await pilot.resize_terminal(100, 24)
        await until(pilot, lambda: app._transcript.size.width > 60, "the second resize laid out")
        await pilot.pause()
        assert "question 0017" in top_rows(app)
        # The user scrolls: the view is theirs, and a resize no longer pulls it back.
        await pilot.press("escape", "ctrl+up", "ctrl+up")
        await pilot.pause()
        assert "question 0017" not in top_rows(app, rows=4)
        assert "question 0016" in top_rows(app, rows=8)  # three lines a step, upwards
        await pilot.resize_terminal(70, 24)
        await until(pilot, lambda: app._transcript.size.width <= 70, "the third resize laid out")
        await pilot.pause()
        assert "question 0017" not in top_rows(app, rows=1)


async def test_home_keeps_the_first_entry_at_the_top_through_a_resize():
    async with resumed() as (app, pilot):
        app.action_scroll_transcript("top")
        await until(pilot, lambda: "question 0000" in top_rows(app), "the first entry at the top")
        await pilot.resize_terminal(60, 30)
        await until(pilot, lambda: app._transcript.size.width <= 60, "the resize laid out")
        await pilot.pause()
        assert "question 0000" in top_rows(app)


async def test_typing_fast_the_view_ends_on_the_last_keystrokes_match():
    """"wrap" matches every answer (the newest, a widget, is shown first), "question 0017"
    only an old entry: both handled before the screen refreshes, the view ends on the old
    entry."""
    from rivulet.widgets.search import SearchBar

    async with resumed() as (app, pilot):
        await pilot.press("ctrl+f")
        bar = app.query_one(SearchBar)
        bar.value = "wrap"  # every answer: the newest, a widget, first
        bar.value = "question 0017"  # then only an old one, before any refresh
        await until(pilot, lambda: "question 0017" in top_rows(app), "the old match at the top")
        for _ in range(5):
            await pilot.pause()
        assert "question 0017" in top_rows(app)


async def test_a_match_in_a_widget_entry_is_scrolled_to_at_once_not_after_a_refresh():
    """A deferred scroll could land after a newer keystroke's scroll (above)."""
    from rivulet.widgets.search import SearchBar

    async with resumed() as (app, pilot):
        await pilot.press("ctrl+f", *"wrap")
        bar = app.query_one(SearchBar)
        await until(pilot, lambda: bar.border_subtitle == "120/120", "every answer matched")
        app.action_scroll_transcript("top")
        await until(pilot, lambda: "question 0000" in top_rows(app), "the first entry at the top")
        bar.action_step(-1)  # the second newest answer: still a widget entry
        assert app._transcript.scroll_y > 0  # moved already, in this same call
