"""A live pane that ended (a later item was added while it streamed) takes no more
deltas: what it shows stops where the server moved on, and the commit replaces it."""

from __future__ import annotations

from helpers.tui import GatedServer, make_app

from rivulet.core.turn import bus as b

CALL = {"id": "fc_1", "type": "function_call", "status": "in_progress", "call_id": "call_1", "name": "lookup",
        "arguments": ""}


async def test_deltas_after_the_pane_ended_are_not_shown():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await app._handle(b.ItemStarted(CALL, "fc_1"))
        await pilot.pause()
        await app._handle(b.ItemDelta("fc_1", "function_call_arguments", '{"q": "first"'))
        await app._handle(b.ItemLiveEnded("fc_1"))
        await app._handle(b.ItemDelta("fc_1", "function_call_arguments", ', "late": "LATE"}'))
        pane = app.live_panes.live["fc_1"]
        await pane.flush(force=True)
        assert pane.has_class("live-ended")
        assert pane.text == '{"q": "first"'  # the late delta never reached the pane
