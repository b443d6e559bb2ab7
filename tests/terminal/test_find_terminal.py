"""Find (ctrl+f) in a real terminal (tmux) reaches into a collapsed Thought: the match is
expanded and on screen (issue 25: it never showed a match inside one)."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready


def test_find_expands_a_collapsed_thought_that_holds_the_match(term, server):
    server.answer_with(lambda prompt: f"ECHO[{prompt}]END", reasoning="Weighing the zebra question first.")
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("hello", "Enter")
    screen = term.wait(lambda s: "ECHO[hello]END" in s and "Thought" in s, what="the answer and its Thought")
    assert "zebra" not in screen  # collapsed
    term.send("C-f")
    term.wait("find in the transcript", what="the search line")
    term.type("zebra")
    term.wait("Weighing the zebra question first.", what="the Thought expanded at the match")
    assert "1/1" in term.screen()
