"""The turn's start and end reach the terminal when they are published, not on the next
screen update: that update first lays out whatever the batch being handled mounted (the
answer's commit: 0.1-2 s under load, issue 22's "Done" 0.3-1 s after the last byte)."""

from __future__ import annotations

import pytest
from helpers.streams import message
from helpers.tui import GatedServer, make_app
from textual.widgets import Static

from rivulet.core.turn import bus as b
from rivulet.widgets.paint_now import paint_now

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def _terminal(app, monkeypatch) -> list[str]:
    """The test driver as a terminal: what the app writes to it is kept."""
    written: list[str] = []
    driver = app._driver
    monkeypatch.setattr(type(driver), "is_headless", property(lambda self: False))
    monkeypatch.setattr(driver, "write", written.append)
    return written


async def test_done_is_written_while_a_batch_holds_the_screen_update(monkeypatch):
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        written = _terminal(app, monkeypatch)
        region = app.screen._compositor.visible_widgets[app._status][0]
        at_status = f"\x1b[{region.y + 1};{region.x + 1}H"
        with app.batch_update():  # a batch of commits: Textual paints nothing until it ends
            app.bridge.publish(b.TurnStarted(1, "hi"))
            assert at_status in "".join(written) and "Working" in "".join(written)
            written.clear()
            app.bridge.publish(b.ItemCompleted({**message("msg_1", "the answer"), "role": "assistant"}, "msg_1"))
            app.bridge.publish(b.TurnCompleted(1, None, "the answer"))
            out = "".join(written)
            assert at_status in out and "Done in 0s" in out
            assert "the answer" not in out  # the commit itself waits for the batch's own frame
        await pilot.pause()
        assert "Done in 0s" in str(app._status.render())


async def test_nothing_is_painted_over_a_dialog(monkeypatch):
    """A widget not on the current screen (a dialog is open) is left to the normal update."""
    from textual.screen import ModalScreen

    class Dialog(ModalScreen[None]):
        def compose(self):
            yield Static("a dialog")

    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        written = _terminal(app, monkeypatch)
        await app.push_screen(Dialog())
        await pilot.pause()
        written.clear()
        assert paint_now(app._status) is False
        assert written == []


async def test_headless_apps_are_not_painted():
    app = make_app(GatedServer([]))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert paint_now(app._status) is False
