"""A wrapped code block is copied as it was written: /copy takes the source lines, not
the rows on screen (no continuation marks, no breaks)."""

from __future__ import annotations

import pytest
from helpers.config_files import empty_config
from helpers.streams import completed, created, message, message_events
from helpers.tui import GatedServer, make_app, until

from rivulet.widgets.composer import Composer
from rivulet.widgets.entries import AssistantEntry

LONG = "result = compute(" + ", ".join(f"argument_{n}" for n in range(16)) + ")"
ANSWER = f"Here:\n\n```python\n{LONG}\nprint(result)\n```\n"


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "config.toml")))


async def test_copy_of_a_wrapped_block_keeps_the_original_lines(monkeypatch):
    server = GatedServer([created(), *message_events("m", ANSWER), completed([message("m", ANSWER)])])
    app = make_app(server)
    copied: list[str] = []
    async with app.run_test(size=(60, 30)) as pilot:
        monkeypatch.setattr("rivulet.app.copying.copy_text", lambda app, text, what: copied.append(text))
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: app.turn_worker is not None and not app.turn_worker.is_running, "the answer")
        await until(pilot, lambda: app.query(AssistantEntry) and not app.live, "the committed answer")
        await pilot.pause()
        assert "↪" in app.export_screenshot()  # wrapped on screen
        app.query_one(Composer).load_text("/copy 1")
        await pilot.press("enter")
        await until(pilot, lambda: copied, "the copy")
    assert len(copied) == 1 and copied[0].rstrip("\n") == f"{LONG}\nprint(result)"
