"""The bell when a turn ends while the terminal is not focused, and none while it is.
The terminal's own focus reports (ESC [ O / ESC [ I) go in as keys; tmux flags a
bell on a window that is not the current one."""

from __future__ import annotations

import time

from .chat_app import RIVULET, chat_ready
from .stream_server import paragraphs
from .test_input import composer_lines

FOCUS_OUT = "\x1b[O"


def bell_flag(term) -> bool:
    out = term.tmux("display-message", "-p", "-t", "t:0", "#{window_bell_flag}")
    return out.strip() == "1"


def start_streaming(term, server):
    server.answer_with(lambda p: paragraphs(20), words_per_second=40)
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.tmux("set-option", "-g", "monitor-bell", "on")
    term.tmux("set-option", "-g", "bell-action", "any")
    term.wait(chat_ready, what="the chat")
    term.send("go", "Enter")
    term.wait("P002", what="the stream under way")


def look_elsewhere(term) -> None:
    term.tmux("new-window", "-d", "-t", "t:1", "sleep 600")
    term.tmux("select-window", "-t", "t:1")


def test_turn_end_rings_the_bell_when_unfocused(term, server):
    start_streaming(term, server)
    term.type(FOCUS_OUT)
    look_elsewhere(term)
    deadline = time.monotonic() + 45
    while not bell_flag(term):
        assert time.monotonic() < deadline, "no bell after the turn ended"
        time.sleep(0.1)
    # The bell goes out as the turn ends, just before the screen shows it.
    while "Done in" not in term.tmux("capture-pane", "-p", "-t", "t:0"):
        assert time.monotonic() < deadline, "the bell rang but the turn did not end"
        time.sleep(0.1)


def test_no_bell_while_focused(term, server):
    """Same, but the terminal never reported losing focus: no bell."""
    start_streaming(term, server)
    look_elsewhere(term)
    window0 = lambda: term.tmux("capture-pane", "-p", "-t", "t:0")  # noqa: E731
    deadline = time.monotonic() + 45
    while "Done in" not in window0():
        assert time.monotonic() < deadline, "the turn did not end"
        time.sleep(0.1)
    term.tmux("send-keys", "-t", "t:0", "-l", "x")  # drawn: all the turn's end wrote is out
    while composer_lines(window0()) != ["x"]:
        assert time.monotonic() < deadline, "the typed x did not show"
        time.sleep(0.1)
    assert not bell_flag(term)
