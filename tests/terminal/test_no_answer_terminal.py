"""A model that thinks and never answers, in a real terminal: the Thought is drawn
open, with its text, and a line under it says no answer came (issue 23, part 7)."""

from __future__ import annotations

from helpers.canned_server import CannedServer
from helpers.think_streams import thinking_only

from .chat_app import RIVULET, chat_ready

THOUGHT = "The user wants a haiku. Let me count syllables: five, seven, five"


def test_the_thought_is_open_and_the_missing_answer_is_said(term):
    with CannedServer(thinking_only(THOUGHT)) as server:
        term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
        term.wait(chat_ready, what="the chat")
        term.send("write a haiku", "Enter")
        screen = term.wait(lambda s: "no answer:" in s and "Done in" in s, what="the no-answer line")
    lines = screen.splitlines()
    note = next(n for n, line in enumerate(lines) if "no answer: the model's output ended inside its reasoning" in line)
    thought = next(n for n, line in enumerate(lines) if "Thought" in line)
    text = next(n for n, line in enumerate(lines) if "Let me count syllables" in line)  # open: its text shows
    assert thought < text < note
