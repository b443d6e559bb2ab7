"""A failed turn's long error is said once in the transcript (issue 42's field run: a turn
the repeat guard stopped showed its line twice at 120 columns, the error entry and the
status line's overflowed note): the status line cuts it, and its entry says it whole."""

from __future__ import annotations

import pytest
from helpers.streams import ev
from helpers.tui import GatedServer, make_app, until
from textual.widgets import Static

from rivulet.widgets.entries import ErrorEntry
from rivulet.widgets.status import StatusLine

pytestmark = pytest.mark.pilot

LONG = ("stopped: the model repeated the same call 3 times (shell, the same arguments and the same output); "
        "send a message to continue")


async def test_a_long_failure_is_said_once_in_the_transcript():
    server = GatedServer([ev("response.created", response={"id": "r"}), ev("error", code="bad", message=LONG)])
    app = make_app(server)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"x", "enter")
        await until(pilot, lambda: app.query(ErrorEntry), "the error entry")
        await until(pilot, lambda: not app.turn_worker.is_running, "the turn's end")
        await pilot.pause()
        status = app.query_one(StatusLine)
        assert status.state == "failed" and str(status.render()).lstrip().startswith("Failed: stopped:")
        assert "…" in str(status.render())  # cut on the line
        texts = [str(w.render()) for w in app.chat.transcript.query(Static)]
        assert sum("the model repeated the same call" in t for t in texts) == 1, texts
