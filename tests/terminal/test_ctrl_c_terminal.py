"""Ctrl+C in a real terminal (tmux): it clears a draft (Up brings it back), stops a
running turn, and on an empty composer asks first, then quits on a second press."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines
from .test_slash_terminal import status_row


def start_chat(term, server):
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")


def test_ctrl_c_clears_a_draft_that_up_brings_back(term, server):
    start_chat(term, server)
    term.type("a draft I changed my mind about")
    term.wait(lambda s: composer_lines(s)[:1] == ["a draft I changed my mind about"], what="the draft")
    term.send("C-c")
    term.wait(lambda s: composer_lines(s) == [""], what="the composer cleared")
    term.send("Up")
    term.wait(lambda s: composer_lines(s)[:1] == ["a draft I changed my mind about"], what="the draft back")
    assert not term.dead() and server.prompts == []


def test_ctrl_c_on_an_empty_composer_asks_and_a_second_quits(term, server):
    start_chat(term, server)
    term.send("C-c")
    term.wait(lambda s: "Ctrl+C again to quit" in status_row(s), what="the hint in the status line")
    term.wait(lambda s: "Ctrl+C again to quit" not in s, what="the hint to go after its second")
    assert not term.dead()
    term.type("still here")
    term.wait(lambda s: composer_lines(s)[:1] == ["still here"], what="typing still works")
    term.send("C-c")  # clears the draft
    term.wait(lambda s: composer_lines(s) == [""], what="the composer cleared")
    term.send("C-c", "C-c")  # two presses in one write: well within the second
    assert term.wait_exit() == 0


def test_ctrl_c_stops_a_running_turn(term, server):
    server.answer_with(lambda prompt: " ".join(f"word{n}" for n in range(2000)), words_per_second=20)
    start_chat(term, server)
    term.send("go", "Enter")
    term.wait("word3", what="the answer streaming")
    term.send("C-c")
    term.wait(lambda s: "Interrupted" in status_row(s), what="the turn interrupted")
    assert not term.dead()
