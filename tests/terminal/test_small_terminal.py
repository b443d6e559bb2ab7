"""80x24: the footer shows every binding that matters, the approval dialog's buttons
are whole, and the palette's Keys panel closes with Esc. (Keys typed as the dialog opens:
test_type_ahead_terminal.py.)"""

from __future__ import annotations

import pytest

from .chat_app import RIVULET, answer_approval, chat_ready
from .tmux import Terminal

FOOTER = ["⏎ Send", "^j Newline", "pgup Scroll", "esc Stop", "^t Diff", "^o History", "^q Quit", "^p palette"]
BUTTONS = ["Yes (y)", "Always (a)", "No (n)", "Stop (s)"]


@pytest.fixture
def small(home):
    terminal = Terminal(home, width=80, height=24)
    try:
        yield terminal
    finally:
        terminal.kill()


def test_footer_and_approval_buttons_fit_80x24(small, demo):
    small.start([*RIVULET, "--base-url", demo.base_url], cwd=small.home / "work")
    screen = small.wait(chat_ready, what="the chat")
    footer = screen.splitlines()[-1]
    for label in FOOTER:
        assert label in footer, f"{label!r} missing from the footer: {footer!r}"
    small.send("make a file", "Enter")
    screen = small.wait("Apply this patch?", what="the approval dialog")
    for label in BUTTONS:
        assert label in screen, f"button {label!r} is not whole:\n{screen}"
    answer_approval(small, "y", "Apply this patch?")  # once the dialog takes answers


def test_palette_keys_panel_closes_with_escape(small, demo):
    small.start([*RIVULET, "--base-url", demo.base_url], cwd=small.home / "work")
    small.wait(chat_ready, what="the chat")
    small.send("C-p")
    small.wait("Search for commands", what="the palette")
    small.type("keys")
    small.wait(lambda s: "Keys" in s and "Show help" in s, what="the Keys command")
    small.send("Enter")
    small.wait(lambda s: "Search for commands" not in s and "Cursor left" in s, what="the Keys panel")
    small.send("Escape")
    small.wait(lambda s: "Cursor left" not in s, what="the panel closing")
    small.type("still here")
    small.wait("still here", what="typing after the panel closed")
