"""80x24: the footer shows every binding that matters, the approval dialog's buttons
are whole, and the palette's Keys panel closes with Esc."""

from __future__ import annotations

import pytest

from rivulet.app.demo_server import DemoServer

from .chat_app import RIVULET, chat_ready
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
    # The first half second of the dialog ignores answers (keys typed as it appeared):
    # answer until it takes.
    small.wait(lambda s: "Apply this patch?" not in s or small.send("y"), what="the dialog closing")


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


def test_keys_typed_as_the_approval_appears_do_not_answer_it(small):
    """Typing "y" in the composer while the question pops up must not approve the patch.
    (Timing decides whether a "y" lands in the dialog's first moment, so without the
    grace period this fails on most runs, not all; the Pilot test is exact.)"""
    import time

    demo = DemoServer(delay=0.01).start()  # the patch streams for a moment first
    try:
        work = small.home / "work"
        small.start([*RIVULET, "--base-url", demo.base_url], cwd=work)
        small.wait(chat_ready, what="the chat")
        small.send("make a file", "Enter")
        small.wait("Working", what="the turn under way")  # keys right after Enter would make it a newline
        deadline = time.monotonic() + 45
        while "Apply this patch?" not in small.screen():  # keep typing until it appears
            assert time.monotonic() < deadline, "no approval question"
            small.type("y")
            time.sleep(0.02)
        screen = small.screen()
        assert "Apply this patch?" in screen and not (work / "rivulet-demo.txt").exists()
    finally:
        demo.stop()
