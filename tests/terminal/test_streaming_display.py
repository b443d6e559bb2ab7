"""The live answer in a real terminal: written line by line into reserved lines below
it (the live pane grows a step of lines at a time, so that most new lines cost a
repaint, not a layout of the screen), nothing skipped or doubled, and no gap left once
the answer is committed."""

from __future__ import annotations

from .stream_server import paragraphs
from .test_navigation import numbers_on, start_chat

STEP = 8  # widgets/live.py LIVE_HEIGHT_STEP


def blank_run_above_status(screen: str) -> int:
    """Blank transcript lines between the last written line and the status line."""
    lines = screen.splitlines()
    status = next(i for i, line in enumerate(lines) if "esc to interrupt" in line or "Done in" in line)
    run = 0
    for line in reversed(lines[:status]):
        if line.strip(" ╏"):
            break
        run += 1
    return run


def test_a_streaming_answer_is_written_in_order_into_reserved_lines(term, server):
    server.answer_with(lambda p: paragraphs(40), words_per_second=60)
    start_chat(term, server)
    term.send("stream please", "Enter")
    midway = term.wait(lambda s: any(n >= 12 for n in numbers_on(s)) and "esc to interrupt" in s,
                       what="the answer under way")
    shown = numbers_on(midway)
    assert shown == list(range(min(shown), max(shown) + 1))  # in order, none skipped or doubled
    # The reserved lines are blank, and there are fewer of them than one step.
    assert blank_run_above_status(midway) < STEP + 1
    done = term.wait(lambda s: "Done in" in s and "THE-END" in s, what="the committed answer")
    final = numbers_on(done)
    assert final == list(range(min(final), 41))
    assert blank_run_above_status(done) <= 1  # the committed entry leaves no reserved gap
