"""The chat indexes what it committed for `sessions search` (issue 40): after a turn, on a
thread of its own, without a search to ask for it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers.mock_api import settings
from helpers.tui import GatedServer, follow_up_payloads, settled, until

from rivulet.app.tui import RivuletApp
from rivulet.core.store.search_index import SearchIndex, index_path
from rivulet.core.store.search_indexer import BackgroundIndexer
from rivulet.core.store.session import SessionWriter

pytestmark = pytest.mark.usefixtures("isolated_config")  # tests/conftest.py


def found(folder: Path, query: str) -> list[str]:
    """What the index holds now (asked without catching up: only what was indexed already)."""
    if not index_path(folder).exists():
        return []
    with SearchIndex(folder) as index:
        return [hit.session for hit in index.search(query)]


async def test_a_finished_turn_is_in_the_index_without_a_search(tmp_path):
    """Its own session file only: the others are the search's to catch up with (a chat
    never spends a first index's minute of CPU)."""
    from rivulet.core import items as it
    from rivulet.core.turn.history import History

    folder = tmp_path / "s"
    other, _ = SessionWriter.create(model="m", base_url="u", directory=folder)
    History(observers=[other.observe]).append(it.user_message("an older wombat"), key="user-1")
    other.close()
    writer, meta = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=folder)
    server = GatedServer(follow_up_payloads("The okapi lives in the Congo.", "r1"))
    app = RivuletApp(settings(), server.transport(), session_writer=writer, remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"where does the okapi live", "enter")
        await until(pilot, lambda: len(server.requests) == 1 and settled(app), "the turn")
        await until(pilot, lambda: found(folder, "okapi AND congo") == [meta.id], "indexed in the background")
        assert found(folder, "wombat") == []


def test_the_indexer_catches_up_each_time_it_is_told(tmp_path):
    """Told while it works, it goes round once more: the second session is never left out."""
    from rivulet.core import items as it
    from rivulet.core.turn.history import History

    def new_session(prompt: str) -> tuple[str, Path]:
        writer, meta = SessionWriter.create(model="m", base_url="u", directory=tmp_path)
        History(observers=[writer.observe]).append(it.user_message(prompt), key="user-1")
        writer.close()
        assert meta.path is not None
        return meta.id, meta.path

    indexer = BackgroundIndexer()
    first, path = new_session("a tapir")
    indexer.committed(path)
    second, path = new_session("a second tapir")
    indexer.committed(path)  # (while the first round may still run)
    wait_for(lambda: sorted(found(tmp_path, "tapir")) == sorted([first, second]))


def wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not indexed in time"
        time.sleep(0.01)
