"""Fixtures for the terminal tests: a tmux terminal per test (always killed), the
app's command line, and a scripted local Responses server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .stream_server import StreamServer
from .tmux import Terminal

RIVULET = [sys.executable, "-m", "rivulet.app"]


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


def chat_ready(screen: str) -> bool:
    """The chat is up: the banner and the footer are drawn."""
    return "rivulet ·" in screen and "Quit" in screen
