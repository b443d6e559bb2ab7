"""A new item type registered as one module (helpers/diagram_kind.py) goes through the
whole chat: a live pane while it streams, then its entry drawn from its view, in the
history as sent, and in the transcript's find (issue 37.3)."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.diagram_kind import diagram_kind
from helpers.streams import completed, created, ev, message, message_events
from helpers.tui import GatedServer, make_app, settled, until
from test_mcp_views import screen_output

from rivulet.widgets.entries import ViewEntry
from rivulet.widgets.live import LiveOther
from rivulet.widgets.search import item_text

ITEM = {"id": "dg_1", "type": "diagram_call", "status": "completed", "title": "the flow",
        "nodes": ["request", "stream", "commit"]}


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def stream() -> list[str]:
    return [
        created(),
        ev("response.output_item.added", output_index=0, item={**ITEM, "status": "in_progress", "nodes": []}),
        ev("response.output_item.done", output_index=0, item=ITEM),  # the gate stops before this
        *message_events("msg_1", "Drawn.", 1),
        completed([ITEM, message("msg_1", "Drawn.")]),
    ]


async def test_a_registered_item_type_is_drawn_live_then_committed_and_found():
    server = GatedServer(stream(), gate_at={0: 2})
    with diagram_kind():
        app = make_app(server)
        async with app.run_test(size=(100, 30)) as pilot:
            app.query_one("Composer").load_text("draw the flow")
            await pilot.press("enter")
            await until(pilot, lambda: app.query(LiveOther), "the diagram's live pane")
            assert "diagram_call" in screen_output(app)[1]
            server.release()
            await until(pilot, lambda: settled(app) and app.query(ViewEntry), "the committed diagram")
            await pilot.pause()
            text = screen_output(app)[1]
            assert "◇ diagram: the flow" in text and "request → stream → commit" in text
            assert [e.item for e in app.conversation.history.entries if e.item.get("type") == "diagram_call"] \
                == [ITEM]
            entry = app.query_one(ViewEntry)
            assert "commit" in item_text(entry.item, entry.output)
