"""A large transcript in a real terminal: a resumed session of 1,000 turns shows its
last answer and takes a key at once, and scrolling through it, where old entries are
data drawn only as they come into view, shows every entry in order, none missing."""

from __future__ import annotations

import json
import re
import time
from itertools import pairwise

from .chat_app import RIVULET, chat_ready

TURNS = 1000


def write_session(home, turns: int = TURNS) -> None:
    """A session file of `turns` question/answer pairs, as core/store/session.py writes it."""
    from rivulet.core.store.session import FORMAT

    work = home / "work"
    store = home / ".local" / "share" / "rivulet" / "sessions"
    store.mkdir(parents=True, exist_ok=True)
    now = time.time() - turns
    lines = [{"type": "session", "format": FORMAT, "id": "large", "created": now, "cwd": str(work),
              "model": "m", "base_url": "http://127.0.0.1/v1"}]
    seq = 0
    for n in range(turns):
        lines.append({"type": "turn", "turn_id": n + 1, "event": "started", "prompt": f"question {n:04d}", "time": now})
        for item in ({"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"question {n:04d}"}]},
                     {"id": f"msg_{n}", "type": "message", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": f"answer {n:04d}", "annotations": []}]}):
            lines.append({"type": "item", "seq": seq, "key": f"k{seq}", "segment": f"req-{n}", "time": now, "item": item})
            seq += 1
        lines.append({"type": "turn", "turn_id": n + 1, "event": "completed", "usage": None, "time": now})
    (store / "large.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def numbers(screen: str) -> list[int]:
    """The turn numbers of the entries on screen, top to bottom."""
    return [int(n) for n in re.findall(r"(?:question|answer) (\d{4})", screen)]


def in_order(screen: str) -> bool:
    """Each turn's question then its answer, turns consecutive: nothing missing or twice."""
    found = numbers(screen)
    return len(found) >= 4 and all(b - a in (0, 1) for a, b in pairwise(found)) and \
        all(found.count(n) <= 2 for n in found)


def start(term, server):
    write_session(term.home)
    term.start([*RIVULET, "--base-url", server.base_url, "resume", "--last"], cwd=term.home / "work")


def test_a_large_resumed_session_shows_its_last_answer_and_takes_a_key(term, server):
    start(term, server)
    term.wait(lambda s: chat_ready(s) and "answer 0999" in s, what="the last answer")
    term.type("typed at once")
    term.wait("typed at once", what="the key in the composer")


def test_scrolling_through_a_large_transcript_shows_every_entry_in_order(term, server):
    start(term, server)
    term.wait(lambda s: chat_ready(s) and "answer 0999" in s, what="the last answer")
    # Up from the bottom, across the newest entries (widgets) into the old ones (data).
    for _ in range(12):
        term.send("PageUp")
    screen = term.wait(lambda s: in_order(s) and max(numbers(s)) < 990, what="older entries, in order")
    assert "answer 0999" not in screen
    # The very first entry, then down from there.
    term.send("C-Home")
    term.wait(lambda s: "question 0000" in s and in_order(s), what="the first entry")
    seen = 0
    for _ in range(6):
        term.send("PageDown")
        screen = term.wait(lambda s, seen=seen: in_order(s) and min(numbers(s)) > seen, what="the next page, in order")
        seen = min(numbers(screen))
    # And back to the end.
    term.send("C-End")
    term.wait(lambda s: "answer 0999" in s and in_order(s), what="the bottom again")
