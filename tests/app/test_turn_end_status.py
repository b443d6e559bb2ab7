"""The turn's end shows when it is published, not after the batch it joins is handled
(issue 22: "Done" came 0.3-1 s after the last byte, behind the commit of the last entries)."""

from __future__ import annotations

import pytest
from helpers.streams import message
from helpers.tui import GatedServer, make_app

from rivulet.core.errors import StreamError
from rivulet.core.turn import bus as b
from rivulet.widgets.entries import AssistantEntry

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def _answer() -> dict:
    return {**message("msg_1", "the answer"), "role": "assistant"}


async def test_done_shows_as_the_turn_completes_before_its_batch_commits_anything():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)):
        status, bridge = app._status, app.bridge
        # No await in between: neither a frame, a timer nor the queued batch can run.
        bridge.publish(b.TurnStarted(1, "hi"))
        assert status.state == "working"
        bridge.publish(b.ItemCompleted(_answer(), "msg_1"))
        bridge.publish(b.UsageUpdated("resp_1", {"total_tokens": 12}))
        bridge.publish(b.TurnCompleted(1, None, "the answer"))
        assert status.state == "idle" and status.note == "Done in 0s"
        assert "Done in 0s" in str(status.render())
        assert not app.query(AssistantEntry)  # the commit is still queued behind it


async def test_events_queued_ahead_of_the_end_do_not_take_done_back():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        status, bridge = app._status, app.bridge
        bridge.publish(b.TurnStarted(1, "hi"))
        bridge.publish(b.Retrying(1, 4, 0.5, StreamError("cut")))
        bridge.publish(b.ResponseStarted(1, 0, 2))
        bridge.publish(b.ItemStarted({"id": "msg_1", "type": "message", "role": "assistant", "content": []},
                                     "msg_1"))
        bridge.publish(b.ResponseStarted(1, 1, 1))  # a follow-up request
        bridge.publish(b.TurnDiffUpdated("--- a/x\n+++ b/x\n", 1))
        bridge.publish(b.ItemCompleted(_answer(), "msg_1"))
        bridge.publish(b.TurnCompleted(1, None, "the answer"))
        assert status.state == "idle" and status.note == "Done in 0s"
        await pilot.pause()  # the queued batch: retry, responses, commit, the diff
        assert app.query(AssistantEntry)
        assert status.state == "idle" and status.retry is None
        assert status.note == "Done in 0s · ctrl+t: turn diff"  # the diff arrived after the end was shown
        # The next turn works as before.
        bridge.publish(b.TurnStarted(2, "again"))
        bridge.publish(b.Retrying(1, 4, 0.5, StreamError("cut")))
        await pilot.pause()
        assert status.state == "retrying"
        bridge.publish(b.TurnCompleted(2, None, None))
        assert status.state == "idle" and status.note == "Done in 0s"


async def test_a_failed_turn_still_shows_its_error_and_the_next_turn_its_progress():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        status, bridge = app._status, app.bridge
        bridge.publish(b.TurnStarted(1, "hi"))
        bridge.publish(b.ErrorOccurred(StreamError("the connection was cut")))
        await pilot.pause()
        assert status.state == "failed" and "the connection was cut" in (status.note or "")
        bridge.publish(b.TurnStarted(2, "again"))
        assert status.state == "working"
        bridge.publish(b.ResponseStarted(2, 0, 1))
        await pilot.pause()
        assert status.state == "working"
