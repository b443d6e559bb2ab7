"""Nothing ticks while nothing happens: the frame tick runs only while a pane is live,
the one-second status tick only while a turn runs; the tick's rate is `stream_fps`."""

from __future__ import annotations

import pytest
from helpers.mock_api import settings
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, settled, until

from rivulet.app.tui import RivuletApp
from rivulet.widgets.live import LiveMessage

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def running(timer) -> bool:
    # Textual's Timer keeps its paused state in an Event (no public accessor in textual 8).
    return timer._active.is_set()


async def test_ticks_run_only_while_a_turn_streams():
    text = "Streaming **answer**\nsecond line\n"
    payloads = [created(), *message_events("msg_1", text, 0, chunks=6), completed([message("msg_1", text)])]
    server = GatedServer(payloads, gate_at={0: 4})  # created, item added, two deltas: then the gate
    app = make_app(server)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not running(app.frame_timer) and not running(app.second_timer)  # idle from the start
        await pilot.press(*"hi", "enter")
        await server.reached.wait()
        await until(pilot, lambda: any(isinstance(p, LiveMessage) for p in app.live.values()), "the live pane")
        assert running(app.frame_timer) and running(app.second_timer)
        server.release()
        await until(pilot, lambda: settled(app) and not app.live, "the turn's end")
        await until(pilot, lambda: not running(app.frame_timer), "the frame tick to stop")
        await until(pilot, lambda: not running(app.second_timer), "the status tick to stop")
        assert "second line" in app.last_answer()


def test_the_frame_tick_follows_stream_fps():
    app = RivuletApp(settings(stream_fps=20), GatedServer([]).transport(), remember_theme=False)
    assert app.frame_interval == pytest.approx(0.05)
    assert RivuletApp(settings(), GatedServer([]).transport()).frame_interval == pytest.approx(1 / 30)


@pytest.mark.parametrize("bad", [0, 1000])
def test_stream_fps_out_of_range_is_a_config_error(bad):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        settings(stream_fps=bad)
