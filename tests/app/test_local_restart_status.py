"""The chat's status line while a local server restarts (issue 42.7): the time rivulet
still waits for it, counted down retry by retry, one toast for the whole wait, and
"Working" again as soon as a try reaches it (the real llama-server then took minutes to
read the prompt again, and the line said it was still waiting for it to come back)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from helpers.mock_api import transport_for
from helpers.streams import simple_text_response
from helpers.tui import until

from rivulet.app.tui import RivuletApp
from rivulet.core.turn.retry_policy import RESTART_WAIT, RetryPolicy
from rivulet.widgets.status import StatusLine

pytestmark = pytest.mark.pilot


async def test_the_status_line_counts_down_the_wait_for_a_restarting_local_server():
    from helpers.mock_api import settings

    down = {"now": False}
    answer = asyncio.Event()  # the server back, reading the prompt anew: its answer waits for this
    answer.set()

    def handler(request: httpx.Request) -> httpx.Response:
        if down["now"]:
            raise httpx.ConnectError("All connection attempts failed")

        async def body():
            await answer.wait()
            yield simple_text_response("up")

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    app = RivuletApp(settings(model="local"), transport_for(handler), remember_theme=False)
    gate = asyncio.Event()
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 6:  # past the usual 4 retries: held, to look at the line
            await gate.wait()

    async with app.run_test(size=(120, 40)) as pilot:
        assert app.conversation is not None
        app.conversation.retry = RetryPolicy(max_retries=4, restart_wait=RESTART_WAIT)  # as for a local URL
        app.conversation._sleep = fake_sleep
        await pilot.press(*"first", "enter")
        await until(pilot, lambda: app.conversation.turns == 1 and not app.turn_worker.is_running, "the first turn")
        down["now"] = True  # the server is killed
        await pilot.press(*"second", "enter")
        await until(pilot, lambda: len(slept) == 6, "the sixth retry's wait")
        status = app.query_one(StatusLine)
        left = RESTART_WAIT - sum(slept)
        await until(pilot, lambda: f"come back: {left:.0f}s left" in str(status.render()), "the countdown")
        assert status.state == "retrying" and "reconnecting" not in str(status.render())
        toasts = [n for n in app._notifications if "retrying in" in str(n.message)]
        assert len(toasts) == 1  # one for the wait, not one per try
        down["now"] = False  # back, slow to answer (a local model reads the whole prompt again)
        answer.clear()
        gate.set()
        await until(pilot, lambda: "Working (" in str(status.render()) and "come back" not in str(status.render()),
                    "the line to say the turn is working again, not that the server is away")
        answer.set()
        await until(pilot, lambda: app.conversation.turns == 2 and not app.turn_worker.is_running, "the second turn")
        await until(pilot, lambda: status.retry is None and status.state == "idle", "the line after the wait")
