"""The conversation as text you can take, in a real terminal (tmux): ctrl+s (/transcript)
opens it in $PAGER (less -R) and the chat comes back when the pager quits; `--print`
writes it to the normal scrollback on quit."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines


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
