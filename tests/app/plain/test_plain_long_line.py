"""Issue 36, item 5, in plain mode: a line of megabytes streamed a delta at a time was
copied and searched whole with each delta (quadratic). A delta now costs what it holds."""

from __future__ import annotations

import tracemalloc

from rivulet.app.plain.blocks import BlockCutter

DELTA = "QUJDRA" * 16  # 96 characters of a base64 blob: no newline


def allocated_by(cutter: BlockCutter, deltas: int) -> int:
    """The most memory held at once (beyond what was) while `deltas` more deltas are fed."""
    tracemalloc.start()
    try:
        for _ in range(deltas):
            assert cutter.feed(DELTA) == []
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_long_line_is_not_copied_with_each_delta():
    cutter = BlockCutter()
    for _ in range(11_000):  # 1 MB on one line so far
        cutter.feed(DELTA)
    # Before: each delta made a new 1 MB string of the line, and searched it for a newline.
    assert allocated_by(cutter, 200) < 200_000
    assert cutter.feed(" the end\n") == [DELTA * 11_200 + " the end\n"]  # a long block: out at its line's end


def test_a_long_line_in_a_code_fence_is_one_block_with_its_fence():
    cutter = BlockCutter()
    blocks = cutter.feed("Output:\n```\n")
    for _ in range(5_000):
        blocks += cutter.feed(DELTA)
    blocks += cutter.feed("\n```\nafter\n")
    assert blocks == ["Output:\n", "```\n" + DELTA * 5_000 + "\n```\n"]
    assert cutter.finish() == "after\n"
