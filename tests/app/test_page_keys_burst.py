"""Page keys that come faster than the transcript is laid out (a loaded machine, a held
key) each move the view, also above what the frozen block has drawn: the overshoot joins
the shift applied once the older lines are laid out (it stopped at the top of the drawn
lines, and the tmux scrolling test lost pages under load)."""

from __future__ import annotations

import re

import pytest
from helpers.mock_api import settings
from helpers.tui import GatedServer, until
from test_transcript_scale import long_session, screen_text

from rivulet.app.tui import RivuletApp

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def turns_on_screen(app: RivuletApp) -> list[int]:
    return [int(n) for n in re.findall(r"question (\d{4})", screen_text(app))]


async def test_page_up_keys_before_any_layout_each_move_the_view(tmp_path):
    app = RivuletApp(settings(), GatedServer([]).transport(), session=long_session(2000), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: "Answer 1999." in screen_text(app), "the last answer on screen")
        for _ in range(3):  # into the old entries, one key at a time
            app.action_scroll_transcript("page_up")
            await pilot.pause()
        start = turns_on_screen(app)
        page = app._transcript.scrollable_content_region.height - 2
        for _ in range(6):  # six keys before the transcript is laid out again
            app.action_scroll_transcript("page_up")
        await pilot.pause()
        await pilot.pause()
        now = turns_on_screen(app)
        assert now == list(range(now[0], now[0] + len(now)))  # in order, none missing
        moved_lines = 4 * (start[0] - now[0])  # a turn is 4 lines: question, answer, their margins
        assert moved_lines >= 6 * page - 8, f"{start} -> {now}, page {page}"
