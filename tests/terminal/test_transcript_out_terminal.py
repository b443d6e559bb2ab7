"""The conversation as text you can take, in a real terminal (tmux): ctrl+s (/transcript)
opens it in $PAGER (less -R) and the chat comes back when the pager quits; `--print`
writes it to the normal scrollback on quit, and without it the last turns stay there."""

from __future__ import annotations

import pytest

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines
from .tmux import Terminal


def test_ctrl_s_opens_the_transcript_in_less_and_q_comes_back(term, server):
    server.answer_with(lambda prompt: f"ECHO[{prompt}]END", reasoning="Weighing the question.")
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work",
               env={"PAGER": "less -R"})
    term.wait(chat_ready, what="the chat")
    term.send("hello", "Enter")
    term.wait("ECHO[hello]END", what="the answer")
    term.send("C-s")
    screen = term.wait(lambda s: "## User" in s and "## Assistant" in s and "rivulet ·" not in s,
                       what="the transcript in less")
    assert "Weighing the question." in screen  # reasoning in full, not collapsed
    term.send("q")
    term.wait(chat_ready, what="the chat back")
    term.type("more")
    term.wait(lambda s: composer_lines(s)[:1] == ["more"], what="the composer has the keys")


def test_print_writes_the_conversation_to_the_scrollback_on_quit(term, server):
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a", "--print"],
               cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("hello there", "Enter")
    term.wait("ECHO[hello there]END", what="the answer")
    term.send("C-q")
    assert term.wait_exit() == 0
    out = term.scrollback()
    assert "## User" in out and "hello there" in out and "## Assistant" in out and "ECHO[hello there]END" in out
    assert out.index("ECHO[hello there]END") < out.index("To resume this session")


@pytest.fixture
def small(home):
    terminal = Terminal(home, width=80, height=24)
    try:
        yield terminal
    finally:
        terminal.kill()


def test_quitting_leaves_the_last_turns_above_the_resume_hint(small, server):
    """Issue 38.3: without --print, the conversation is still in the terminal once the full
    screen is gone: its last turns (here 2 of 3), a line for the rest, then the hint."""
    small.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=small.home / "work",
                env={"RIVULET_EXIT_RECAP_TURNS": "2"})
    small.wait(chat_ready, what="the chat")
    for word in ("first", "second", "third"):
        small.send(f"{word} question", "Enter")
        small.wait(lambda s, w=word: f"ECHO[{w} question]END" in s and "Done in" in s, what=f"the {word} turn's end")
    small.send("C-q")
    assert small.wait_exit() == 0
    out = small.scrollback()
    assert "(1 earlier turn not shown:" in out and "first question" not in out  # the alternate screen is gone
    assert out.index("(1 earlier turn") < out.index("second question") < out.index("ECHO[second question]END") \
        < out.index("third question") < out.index("ECHO[third question]END") < out.index("To resume this session")
