"""The demo with a file attached (issue 25): it answers what was typed, and does not start
its patch script because the attachment (its `<file path=…>` wrapper) says "file"."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready


def test_attaching_a_file_in_the_demo_gets_the_plain_answer(term, demo):
    work = term.home / "work"
    (work / "notes.txt").write_text("plain notes\n")
    term.start([*RIVULET, "--base-url", demo.base_url], cwd=work)
    term.wait(chat_ready, what="the chat")
    term.type("summarise @notes.txt")
    term.wait("notes.txt · 12 B", what="the chip")
    term.send("Enter")
    # The status line's "Done" can be painted ahead of the answer: wait for either outcome.
    screen = term.wait(lambda s: "You asked" in s or "Apply this patch?" in s, what="the answer or the approval")
    assert "Apply this patch?" not in screen
    words = " ".join(screen.split())  # the answer wraps
    assert 'You asked: "summarise @notes.txt"' in words, screen
