"""A snapshot of the queue above the composer at 80x24 (issue 25; pytest-textual-snapshot,
update with --snapshot-update, then look at the SVG): a steered message waiting for the
next request, three queued ones (one too long for a row, one of several lines with an
escape sequence in it), and a draft the status line offers to steer."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.widgets.queue_view import QueueView

ANSWER = "Reading the logs first."


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch, still_screens):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def test_the_queue_at_80x24(snap_compare):
    payloads = [created(), *message_events("m1", ANSWER), completed([message("m1", ANSWER)])]
    server = GatedServer(payloads, gate_at={0: 3})
    app = make_app(server)

    async def run_before(pilot):
        await pilot.press(*"look at the logs", "enter")
        await server.reached.wait()
        await pilot.press(*"also check the tests", "tab")
        await pilot.press(*("then rewrite the parser so that every error names its line and column, "
                            "and add a test for each"), "enter")
        app.queue.add("first line \x1b[31mred\nsecond line\nthird", "first line")
        await pilot.press(*"and the docs", "enter")
        await pilot.press(*"a draft")
        view = app.query_one(QueueView)
        await until(pilot, lambda: len(view.queued) == 3 and view.steering, "the queue")
        app._status.refresh_line()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
