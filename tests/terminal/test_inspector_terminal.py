"""The history inspector in a real terminal (tmux): typing searches at once (no shift+Tab
first), Down goes back to the rows, and `e` asks before it rewinds: Esc keeps everything."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines


def test_typing_searches_and_e_asks_before_rewinding(term, server):
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    for word in ("alpha", "bravo"):
        term.send(word, "Enter")
        term.wait(f"ECHO[{word}]END", what=f"the answer to {word}")
    term.send("C-o")
    term.wait("committed items", what="the inspector")
    term.type("bravo")  # straight into the search box
    term.wait(lambda s: "ECHO[bravo]END" in s and "ECHO[alpha]END" not in s, what="the rows narrowed")
    term.send("Down")  # back to the rows: the user's "bravo" first
    term.type("e")
    term.wait("Edit from this message?", what="the question")
    term.send("Escape")
    term.wait(lambda s: "Edit from this message?" not in s and "committed items" in s, what="back, nothing cut")
    term.type("e")
    term.wait("Edit from this message?", what="the question again")
    term.send("Down", "Enter")
    term.wait(lambda s: composer_lines(s)[:1] == ["bravo"], what="the message back in the composer")
    assert "ECHO[alpha]END" in term.screen() and "ECHO[bravo]END" not in term.screen()
