"""/search in the chat, in a real terminal (issue 40): the sessions that said it, the match
marked; Enter resumes the one picked, its conversation back on the screen."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready


def test_search_finds_an_earlier_session_and_enter_resumes_it(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("the kumquat question", "Enter")
    term.wait("ECHO[the kumquat question]END", what="the answer")
    term.send("/new", "Enter")
    term.wait(lambda s: "ECHO[the kumquat question]END" not in s, what="a fresh conversation")
    term.send("/search kumquat", "Enter")
    screen = term.wait(lambda s: "Sessions that say kumquat" in s and "turn 1" in s, what="the hits")
    assert "ECHO[the «kumquat» question]END" in screen  # the newest hit: the answer
    term.send("Enter")
    term.wait(lambda s: "Sessions that say" not in s and "ECHO[the kumquat question]END" in s,
              what="the session resumed")
