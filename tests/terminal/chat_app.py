"""The chat as the terminal tests start it, and when it is up."""

from __future__ import annotations

import sys

RIVULET = [sys.executable, "-m", "rivulet.app"]


def chat_ready(screen: str) -> bool:
    """The chat is up: the banner and the footer are drawn."""
    return "rivulet ·" in screen and "Quit" in screen
