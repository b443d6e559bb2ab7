"""A slowly streamed answer (a local model's pace: a line a second) in a real terminal has
no empty rows reserved under it (issue 42.7: 5-8 sat there while it streamed)."""

from __future__ import annotations

import pytest

from .stream_server import paragraphs
from .test_navigation import numbers_on, start_chat
from .test_streaming_display import blank_run_above_status


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_a_slow_answer_has_no_reserved_rows_under_it(term, server, size):
    term.width, term.height = size
    server.answer_with(lambda p: paragraphs(8, words=6), words_per_second=10)  # a line every 0.6 s
    start_chat(term, server)
    term.send("slowly please", "Enter")
    for n in (3, 5):  # twice while it streams, each a few lines in
        midway = term.wait(lambda s, n=n: n in numbers_on(s) and "esc to interrupt" in s,
                           what=f"line {n} of the answer")
        assert blank_run_above_status(midway) == 0, midway  # no blank row under the newest line
    term.wait(lambda s: "Done in" in s and "THE-END" in s, what="the committed answer")
