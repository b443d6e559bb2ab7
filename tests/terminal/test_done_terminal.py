"""The turn's end, painted the moment it is published (widgets/paint_now.py), in a real
terminal: on the status line's own row, with the rest of the screen intact and the
cursor back in the composer, turn after turn."""

from __future__ import annotations

from .stream_server import paragraphs
from .test_navigation import numbers_on, start_chat


def status_row(screen: str, words: str) -> int:
    return next(i for i, line in enumerate(screen.splitlines()) if words in line)


def test_done_is_painted_on_the_status_row_and_typing_stays_in_the_composer(term, server):
    server.answer_with(lambda p: paragraphs(30), words_per_second=150)  # long enough to see it working
    start_chat(term, server)
    for turn in (1, 2):
        term.send(f"turn {turn}", "Enter")
        working = term.wait(lambda s: "Working (" in s, what="the turn under way")
        row = status_row(working, "Working (")
        done = term.wait(lambda s: "Done in" in s and "THE-END" in s and "Working (" not in s,
                         what="the committed answer")
        assert status_row(done, "Done in") == row  # the status line's row, nowhere else
        assert sum("Done in" in line for line in done.splitlines()) == 1
        assert numbers_on(done)[-1] == 30
    term.type("after done")
    typed = term.wait(lambda s: "after done" in s, what="the typed text")
    assert "after done" not in typed.splitlines()[status_row(typed, "Done in")]  # in the composer
