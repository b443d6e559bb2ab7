"""Transcript entries from the keyboard in a real terminal (tmux): shift+Tab reaches the
newest entry, k/Up moves to the one before, Enter expands a Thought, c copies an entry,
and a character typed on an entry goes to the composer."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines


def on_entry(screen: str, text: str) -> bool:
    """The row showing `text` has the focus bar at its left."""
    return any(text in row and row.lstrip().startswith("┃") for row in screen.splitlines())


def test_entries_are_reached_moved_expanded_and_copied_from_the_keyboard(term, server):
    server.answer_with(lambda prompt: f"ECHO[{prompt}]END", reasoning="Weighing the quokka question.")
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("hello", "Enter")
    screen = term.wait(lambda s: "ECHO[hello]END" in s and "Thought" in s, what="the answer and its Thought")
    assert "quokka" not in screen
    term.send("BTab")  # the newest entry: the answer (a bar marks the entry the keys are on)
    term.wait(lambda s: on_entry(s, "ECHO[hello]END"), what="the answer focused")
    term.send("k")  # the Thought before it
    term.wait(lambda s: on_entry(s, "Thought"), what="the Thought focused")
    term.send("Enter")
    term.wait("Weighing the quokka question.", what="the Thought expanded")
    term.send("Enter")
    term.wait(lambda s: "quokka" not in s, what="collapsed again")
    term.send("j")  # the answer
    term.wait(lambda s: on_entry(s, "ECHO[hello]END"), what="the answer focused again")
    term.send("c")
    term.wait("Copied the entry", what="the copy's notice")
    term.type("x")  # typing on an entry lands in the composer
    term.wait(lambda s: composer_lines(s)[:1] == ["x"], what="x in the composer")
    term.send("BSpace", "BTab")
    term.wait(lambda s: on_entry(s, "ECHO[hello]END") and composer_lines(s) == [""], what="on the answer")
    term.send("Escape")  # Esc on an entry: back to the composer
    term.type("y")
    term.wait(lambda s: composer_lines(s)[:1] == ["y"], what="y in the composer")
