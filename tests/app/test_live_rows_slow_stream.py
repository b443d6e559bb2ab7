"""No empty rows under an answer while it streams slowly (issue 42.7): the live message
reserved its step of 8 blank lines whatever the pace, the 5-8 empty rows a local model's
answer (a line a second) sat above. Now a slow stream grows by its lines alone, and a
fast one's reserve is given back once its lines stop coming. Measured on the screen: the
rows between the pane's last written line and its end, frame by frame (the app's tick)."""

from __future__ import annotations

import pytest
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.widgets.frozen import SETTLE_TICKS, MarkdownTail
from rivulet.widgets.live import LIVE_HEIGHT_STEP, LiveMessage

pytestmark = pytest.mark.pilot

LINES = [f"line {n} of a slow answer\n\n" for n in range(1, 7)]


def blank_rows_below_text(tail: MarkdownTail) -> int:
    """The pane's rows under its last written line, as laid out on the screen."""
    rows = tail.size.height
    written = [y for y in range(rows) if "".join(seg.text for seg in tail.render_line(y)).strip()]
    return rows - 1 - max(written) if written else rows


async def test_a_slow_stream_has_no_reserved_rows_and_a_fast_ones_go_when_it_pauses():
    text = "".join(LINES)
    server = GatedServer([created(), *message_events("m", text), completed([message("m", text)])], gate_at={0: 2})
    app = make_app(server)
    async with app.run_test(size=(80, 30)) as pilot:
        app.frame_timer.pause()  # the test is the frame tick: it calls each frame below
        await pilot.press(*"hi", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) for p in app.live.values()), "the live pane")
        pane = next(p for p in app.live.values() if isinstance(p, LiveMessage))
        tail = pane._tail

        async def frames(n: int) -> None:
            for _ in range(n):
                await pane.flush()
            await pilot.pause()

        await frames(SETTLE_TICKS)  # nothing yet
        for line in LINES[:3]:  # a local model's pace: a line, then many frames without one
            pane.add_delta("output_text", line)
            await frames(15)
            assert blank_rows_below_text(tail) <= 1, "a slow line left reserved rows"  # (Markdown's gap)
        for line in LINES[3:]:  # fast: a line each frame, a step reserved
            pane.add_delta("output_text", line)
            await frames(1)
        assert tail.size.height % LIVE_HEIGHT_STEP == 0
        await frames(SETTLE_TICKS)  # the stream pauses: the reserve goes
        assert blank_rows_below_text(tail) <= 1
        server.release()
        await until(pilot, lambda: not app.live, "the answer committed")
