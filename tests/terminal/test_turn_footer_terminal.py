"""The turn's footer (its tokens and speed, after "Done in") in a real terminal (issue 42.7):
at 120 columns it shows beside a llama-server model named by its file path (the model's
file name only); at 80 the essentials stay whole (state, model, context left)."""

from __future__ import annotations

import pytest

from .stream_server import paragraphs
from .test_navigation import start_chat

MODEL = "/work/peer/models/qwen-coder-1.5b.gguf"


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
def test_the_turns_tokens_and_speed_show_at_120_columns(term, server, size):
    term.width, term.height = size  # (before the start: the session is made at this size)
    server.answer_with(lambda p: paragraphs(6), words_per_second=200)  # a measurable speed
    start_chat(term, server, "--model", MODEL)
    term.send("hi", "Enter")
    done = term.wait(lambda s: "Done in" in s and "THE-END" in s, what="the turn's end")
    row = next(line for line in done.splitlines() if "Done in" in line)
    assert "qwen-coder-1.5b.gguf" in row and "/work/peer" not in row and "context left" in row
    assert len(row.rstrip()) <= size[0]
    if size[0] == 120:
        assert " in · " in row and " out" in row and "tok/s" in row, row
