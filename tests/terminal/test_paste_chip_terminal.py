"""A large paste in a real terminal (tmux, a bracketed paste): the composer shows a chip,
Backspace takes it away whole, ctrl+b expands it, and the full text is what is sent."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines

BIG = "\n".join(f"log line {n}" for n in range(125))


def test_a_large_paste_is_a_chip_that_sends_every_line(term, server):
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.paste(BIG, bracketed=True)
    term.wait(lambda s: composer_lines(s) == ["[Pasted 125 lines]"], what="the chip")
    term.send("BSpace")
    term.wait(lambda s: composer_lines(s) == [""], what="the chip removed whole")
    term.paste(BIG, bracketed=True)
    term.wait(lambda s: composer_lines(s) == ["[Pasted 125 lines]"], what="the chip again")
    term.send("C-b")
    term.wait(lambda s: composer_lines(s)[-1:] == ["log line 124"], what="the chip expanded")
    term.send("C-c")  # cleared
    term.wait(lambda s: composer_lines(s) == [""], what="the composer cleared")
    term.type("see: ")
    term.paste(BIG, bracketed=True)
    term.wait(lambda s: composer_lines(s) == ["see: [Pasted 125 lines]"], what="the chip after text")
    term.send("Enter")
    term.wait("ECHO[see: log line 0", what="the answer")
    assert server.prompts == ["see: " + BIG]
