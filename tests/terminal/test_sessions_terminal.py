"""Starting the chat and quitting leaves no session behind; a conversation leaves
one, and the command to resume it is printed on quit."""

from __future__ import annotations

from .conftest import RIVULET, chat_ready


def sessions_in(home):
    return list((home / ".local" / "share" / "rivulet" / "sessions").glob("*.jsonl"))


def test_quitting_without_a_message_writes_no_session(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("C-q")
    assert term.wait_exit() == 0
    assert sessions_in(term.home) == []
    assert "rivulet resume" not in term.scrollback()


def test_a_conversation_is_saved_and_quitting_says_how_to_resume(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("keep this", "Enter")
    term.wait("ECHO[keep this]END", what="the answer")
    term.send("C-q")
    assert term.wait_exit() == 0
    [saved] = sessions_in(term.home)
    assert f"To resume this session: rivulet resume {saved.stem}" in term.scrollback()
