"""Issue 36, item 3, in the chat itself: a chat started after a restore was killed midway
(then quit) left the workspace mixed. Now its boot rolls the restore back before the
engine exists, and the chat shows the line as a notice."""

from __future__ import annotations

import asyncio
import os
from functools import partial

from helpers.checkpoint_cases import killed_restore, state
from helpers.tui import until

from rivulet.app.boot import prepare
from rivulet.app.cli import build_parser
from rivulet.app.tui import RivuletApp
from rivulet.core.checkpoints.recovery import ROLLED_BACK
from rivulet.core.config_sources import Peek


async def test_starting_and_quitting_the_chat_repairs_the_workspace_and_says_so(tmp_path, monkeypatch):
    ws, _, after = await asyncio.to_thread(killed_restore, tmp_path, 5)  # (it runs a loop of its own)
    monkeypatch.setenv("RIVULET_CHECKPOINTS_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    monkeypatch.setenv("RIVULET_CONFIG", os.devnull)
    app = RivuletApp.booting(Peek(model="m"), partial(prepare, build_parser().parse_args(["--demo", "--workspace",
                                                                                          str(ws)])), demo=True)
    app.remember_theme = False
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any(ROLLED_BACK in str(n.message) for n in app._notifications),
                    "the notice of the rolled-back restore")
        await pilot.press("ctrl+q")
    if app.ready is not None:
        app.ready.stop()  # the demo server
    assert state(ws) == after
