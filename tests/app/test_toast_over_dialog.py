"""A toast over a dialog (issue 38.6): at 80x24 and 120x40 it takes the screen's top row
and never covers the dialog, however many are up; the chat's toasts are all there again
when the dialog closes."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.mock_api import settings
from helpers.tui import GatedServer, until

from rivulet.app.tui import RivuletApp
from rivulet.widgets.choice import Choice, ChoiceScreen


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


def _shown(app) -> list:
    """The toasts drawn on the screen now (a hidden one has no region)."""
    return [t for t in app.screen.query("Toast") if t.region.area]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_toasts_stay_clear_of_an_open_dialog(size):
    app = RivuletApp(settings(), GatedServer().transport(), remember_theme=False)
    async with app.run_test(size=size, notifications=True) as pilot:
        app.notify("A toast from before the dialog opened, long enough to wrap at forty columns")
        choices = [Choice(str(n), f"option {n} " * 20, "its help") for n in range(40)]
        app.push_screen(ChoiceScreen("Pick one", choices))
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the dialog")
        app.notify("One raised while the dialog is open", severity="warning")
        app.notify("And another one")
        await until(pilot, lambda: any("And another one" in str(t.render()) for t in _shown(app)), "the newest toast")
        dialog = app.screen.query_one("#choice").region
        for toast in _shown(app):
            assert not toast.region.overlaps(dialog), (toast.region, dialog)
        assert len(_shown(app)) == 1  # the newest only: a stack of them would reach the dialog
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ChoiceScreen), "the dialog to close")
        await until(pilot, lambda: len(_shown(app)) == 3, "every toast back on the chat")
