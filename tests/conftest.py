"""Fixtures for every test and the tiers' markers. Helpers that tests import live in
tests/helpers/ (paths, recorded, mock_api, config_files, local_server: the one HTTP server
of the tests): a test never imports this module."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.config_files import empty_config
from helpers.paths import ROOT
from helpers.tiers import PEER_FIXTURES, PEER_FOLDERS, PEERS, runs_the_app, shares_a_fixture

# The aimock fixture (a real Responses server) for every test that asks for it.
pytest_plugins = ["helpers.aimock"]


@pytest.fixture(autouse=True)
def _answer_approvals_at_once(monkeypatch):
    """Pilot answers the approval dialog the moment it shows: no pause in typing is waited
    for in tests ("always" still takes its second key; tests/app/test_approval_type_ahead.py
    tests the wait itself)."""
    from rivulet.widgets.dialogs import ApprovalScreen

    monkeypatch.setattr(ApprovalScreen, "QUIET", 0.0)


# ---- tiers: what a test needs besides Python (pyproject.toml registers the markers) ----------
# `pytest -m "not peers and not pilot"` is the fast tier, `-m "not peers"` adds the app's Pilot
# tests; CI (scripts/test) runs everything. A test that asks for a peer's fixture, or lives in
# the tmux folder, is marked here, so a new one cannot forget; bubblewrap is marked where the
# test runs it (`pytest.mark.bwrap`). A module that runs the app under Textual's Pilot
# (`run_test(`, or a snapshot's `snap_compare`) is marked `pilot`, from its source, as well
# (the rules: tests/helpers/tiers.py). A test whose module starts a server (or builds a wheel)
# once for all its tests is put in its module's `xdist_group`: scripts/test runs two xdist
# workers with `--dist loadgroup`, which keeps a group on one worker. First, so that the
# markers are there when xdist's own hook reads them.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    pilot: dict[Path, bool] = {}
    sources: dict[Path, str] = {}
    for item in items:
        folder = item.path.relative_to(ROOT / "tests").parts[0]
        needs = {marker for fixture, marker in PEER_FIXTURES.items() if fixture in getattr(item, "fixturenames", ())}
        if folder in PEER_FOLDERS:
            needs.add(PEER_FOLDERS[folder])
        for marker in needs:
            item.add_marker(marker)
        if needs or any(item.get_closest_marker(peer) for peer in PEERS):
            item.add_marker("peers")
        if item.path not in sources:
            sources[item.path] = item.path.read_text(encoding="utf-8")
            pilot[item.path] = runs_the_app(sources[item.path])
        if pilot[item.path]:
            item.add_marker("pilot")
        if shares_a_fixture(sources[item.path], getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group(str(item.path.relative_to(ROOT))))


@pytest.fixture
def still_screens(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a snapshot must not depend on: the elapsed seconds of "Working (Ns", the turn's
    measured speed after "Done in" (time to first token, tokens/s), a blinking cursor."""
    from rivulet.app.handlers.turn_status import TurnStatus
    from rivulet.core.turn.turn_cost import TurnClock
    from rivulet.widgets.composer import Composer

    monkeypatch.setattr(TurnStatus, "second", lambda self: None)
    monkeypatch.setattr(TurnClock, "response", lambda self, first, ended, timings: None)
    init = Composer.__init__

    def steady_cursor(self: Composer, **kwargs: Any) -> None:
        init(self, **kwargs)
        self.cursor_blink = False

    monkeypatch.setattr(Composer, "__init__", steady_cursor)


@pytest.fixture
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config file of the test's own: the user's config never reaches a test.
    (Modules that want it for every test: `pytestmark = pytest.mark.usefixtures("isolated_config")`.)"""
    path = empty_config(tmp_path / "config.toml")
    monkeypatch.setenv("RIVULET_CONFIG", str(path))
    return path


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _sessions_in_tmp(tmp_path, monkeypatch):
    """Session files (and workspace checkpoints) of a test go to its own folder, never the user's."""
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    # No background capability probes: they would add requests to every test's server
    # (tests/app/test_capability_cache.py turns them on where they are the subject).
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "false")
    monkeypatch.setenv("RIVULET_CHECKPOINTS_DIR", str(tmp_path / "checkpoints"))


@pytest.fixture
def demo():
    """rivulet's embedded demo server (scripted answers, no delay), stopped after the test."""
    from rivulet.app.demo_server import DemoServer

    server = DemoServer(delay=0).start()
    try:
        yield server
    finally:
        server.stop()
