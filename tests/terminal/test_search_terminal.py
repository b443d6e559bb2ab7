"""/search in the chat, in a real terminal (issue 40): the sessions that said it, the match
marked; Enter resumes the one picked, its conversation back on the screen."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready


def test_search_finds_an_earlier_session_and_enter_resumes_it(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("the kumquat question", "Enter")
    term.wait("ECHO[the kumquat question]END", what="the answer")
    term.type("/new")
    term.send("Enter")
    term.wait(lambda s: "ECHO[the kumquat question]END" not in s, what="a fresh conversation")
    term.type("/search kumquat")
    term.send("Enter")
    screen = term.wait(lambda s: "Sessions that say kumquat" in s and "turn 1" in s, what="the hits")
    assert "ECHO[the «kumquat» question]END" in screen  # the newest hit: the answer
    term.send("Enter")
    term.wait(lambda s: "Sessions that say" not in s and "ECHO[the kumquat question]END" in s,
              what="the session resumed")


def test_sessions_search_on_a_terminal_marks_the_match_and_says_the_first_indexing(term):
    """The match is bold and underlined (no «» on a terminal); the first search says it is
    indexing, the next one does not."""
    from rivulet.core import items as it
    from rivulet.core.store.session import SessionWriter
    from rivulet.core.turn.history import History

    work = term.home / "work"
    writer, meta = SessionWriter.create(model="m", base_url="u", cwd=str(work),
                                        directory=term.home / ".local" / "share" / "rivulet" / "sessions")
    History(observers=[writer.observe]).append(it.user_message("where the kumquat grows"), key="user-1")
    writer.close()
    for first in (True, False):
        term.start([*RIVULET, "sessions", "search", "kumquat"], cwd=work)
        assert term.wait_exit() == 0
        out = term.scrollback()
        assert f"{meta.id}  where the kumquat grows" in out and "«" not in out
        assert ("indexing the saved sessions (the first search only)" in out) == first
        styled = term.tmux("capture-pane", "-p", "-e", "-t", "t", "-S", "-1000")  # (with the cells' attributes)
        assert "where the \x1b[1;4mkumquat\x1b[0m" in styled  # bold and underlined, then plain again
        term.kill()
