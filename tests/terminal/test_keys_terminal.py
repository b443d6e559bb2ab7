"""Issue 38.4's keys in a real terminal (tmux, 80x24 and 120x40): Ctrl+Q asks before it throws a
running turn away; Tab with no turn running sends nothing; alt+v selects transcript lines
from the keyboard and y copies them (OSC 52, into tmux's buffer)."""

from __future__ import annotations

import re

import pytest

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines


def background(term, text: str) -> str | None:
    """The background colour (SGR) `text` is drawn on, as tmux has the screen."""
    for row in term.tmux("capture-pane", "-p", "-e", "-t", "t").splitlines():
        if text in row:
            colours = re.findall(r"\x1b\[[0-9;]*?(48;[0-9;]+?)m", row[:row.index(text)])
            return colours[-1] if colours else None
    return None


@pytest.fixture(params=[(80, 24), (120, 40)], ids=["80x24", "120x40"])
def size(request) -> tuple[int, int]:
    return request.param


def start_chat(term, server, size: tuple[int, int]) -> None:
    term.width, term.height = size
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")


def test_ctrl_q_asks_while_a_turn_runs_then_quits(term, server, size):
    server.answer_with(lambda prompt: " ".join(f"word{n}" for n in range(2000)), words_per_second=20)
    start_chat(term, server, size)
    term.send("go", "Enter")
    term.wait("word3", what="the answer streaming")
    term.send("C-q")
    term.wait(lambda s: "A turn is running: ctrl+q again" in s, what="the question (a toast: it wraps)")
    assert not term.dead()
    term.send("C-q")
    assert term.wait_exit() == 0


def test_tab_with_no_turn_running_sends_nothing(term, server, size):
    start_chat(term, server, size)
    term.type("half typed")
    term.wait(lambda s: composer_lines(s)[:1] == ["half typed"], what="the draft")
    term.send("Tab")
    term.wait(lambda s: "No turn is running to steer into" in s and "Enter sends" in s,
              what="the note saying what sends (a toast: it wraps)")
    assert server.prompts == [] and composer_lines(term.screen())[:1] == ["half typed"]


def test_alt_v_selects_lines_and_y_copies_them(term, server, size):
    start_chat(term, server, size)
    term.tmux("set-option", "-g", "set-clipboard", "on")  # tmux keeps what OSC 52 sets as a buffer
    for word in ("first", "second"):
        term.send(f"{word} question", "Enter")
        term.wait(lambda s, word=word: f"ECHO[{word} question]END" in s and "Done in" in s, what=f"the {word} answer")
    plain = background(term, "first question")  # not selected
    term.send("M-v")
    term.wait("y/enter copy", what="the line-select hint")
    term.send("k", "K", "K")  # up to the second question, then two lines more, to the first

    def shown_selected(_: str) -> bool:
        chosen = {background(term, text) for text in ("first question", "ECHO[first question]END",
                                                      "second question")}
        return len(chosen) == 1 and chosen != {plain} and background(term, "ECHO[second question]END") not in chosen

    term.wait(shown_selected, what="the three lines shown selected, and only they")
    term.send("y")
    term.wait(lambda s: "Copied 3 lines" in s, what="the copy's notice")
    term.wait(lambda s: term.tmux("list-buffers") != "", what="the copy (OSC 52) in tmux's buffer")
    assert term.tmux("show-buffer").splitlines() == ["first question", "ECHO[first question]END", "second question"]
