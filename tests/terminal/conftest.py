"""Fixtures for the terminal tests: a tmux terminal per test (always killed) and a
scripted local Responses server. The app's command line is in chat_app.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .stream_server import StreamServer
from .tmux import Terminal


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    return home


@pytest.fixture
def term(home: Path) -> Iterator[Terminal]:
    terminal = Terminal(home)
    try:
        yield terminal
    finally:
        terminal.kill()


@pytest.fixture
def server() -> Iterator[StreamServer]:
    srv = StreamServer().start()
    try:
        yield srv
    finally:
        srv.stop()
