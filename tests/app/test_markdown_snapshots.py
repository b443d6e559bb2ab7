"""Snapshots of a committed answer's Markdown (issue 25): a table whose columns are
aligned left, right and centred as its delimiter row says, and an ordered list numbered
"1." as it was while it streamed. Update with --snapshot-update."""

from __future__ import annotations

import pytest
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, settled, until

from rivulet.widgets.entries import AssistantEntry

ANSWER = ("Two steps:\n\n1. Read the stream\n2. Commit on done\n\n"
          "| name | count | mark |\n|:--|--:|:-:|\n| a | 1 | x |\n| bbbbbb | 22222 | yyyyy |\n\n"
          "And a closing line.\n")

pytestmark = pytest.mark.usefixtures("isolated_config", "still_screens")  # tests/conftest.py


def test_a_committed_table_and_list(snap_compare):
    server = GatedServer([created(), *message_events("m", ANSWER), completed([message("m", ANSWER)])])
    app = make_app(server)

    async def run_before(pilot):
        await pilot.press(*"Show me", "enter")
        await until(pilot, lambda: app.query(AssistantEntry) and not app.live and settled(app),
                    "the committed answer")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 30), run_before=run_before)
