"""A flood of items in a real terminal (issue 22): text typed while one response streams
3,000 items reaches the composer whole and in order, every item is committed (the last
is drawn, right below the frozen lines above it), and scrolling up through the flood, whose old items were never drawn while it
streamed, shows them in order, none missing."""

from __future__ import annotations

import re
from itertools import pairwise

from helpers.canned_server import CannedServer
from helpers.many_items import many_items_body

from .chat_app import RIVULET, chat_ready

ITEMS = 3000
TYPED = "typed while the flood streams"


def items(screen: str) -> list[int]:
    return [int(n) for n in re.findall(r"item (\d+): a short line", screen)]


def test_keys_typed_in_a_flood_arrive_whole_and_the_flood_scrolls_in_order(term):
    with CannedServer(many_items_body(ITEMS)) as server:
        term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
        term.wait(chat_ready, what="the chat")
        term.send("many items", "Enter")
        term.wait(lambda s: bool(items(s)), what="the flood under way")
        term.type(TYPED)
        screen = term.wait(lambda s: f"item {ITEMS - 1}: a short line." in s and "Done in" in s and TYPED in s,
                           what="the last item, the turn's end and the typed text")
        assert len(server.requests) == 1  # typed, not sent
        # The flood's last item is its one widget, the ones above it frozen lines: they
        # meet with nothing missing or doubled.
        bottom = items(screen)
        assert len(bottom) >= 3 and bottom == list(range(ITEMS - len(bottom), ITEMS)), bottom
        # Up through the flood: the items come into view in order, none missing.
        for _ in range(8):
            term.send("PageUp")
        screen = term.wait(lambda s: len(items(s)) >= 5 and max(items(s)) < ITEMS - 30, what="older items")
        shown = items(screen)
        assert all(b - a == 1 for a, b in pairwise(shown)), shown
