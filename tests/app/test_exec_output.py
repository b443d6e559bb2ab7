"""`exec --json` writes every event as one line, and flushes once per burst of events
rather than once per line (10,000 items are ~40,000 lines)."""

from __future__ import annotations

import asyncio
import io
import json

from rivulet.app import exec_run
from rivulet.core.turn.bus import EventBus, ItemDelta


class CountingOut(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


async def test_a_burst_of_events_is_every_line_and_one_flush(monkeypatch):
    out = CountingOut()
    monkeypatch.setattr("sys.stdout", out)
    bus = EventBus()
    gone = asyncio.Event()
    bus.subscribe(lambda event: exec_run._print_json(gone, event))
    for n in range(500):
        bus.publish(ItemDelta("msg_1", "output_text", f"word {n}"))
    await bus.drain()
    await asyncio.sleep(0)  # the flush runs once the loop turns after the burst
    lines = out.getvalue().splitlines()
    assert [json.loads(line)["delta"] for line in lines] == [f"word {n}" for n in range(500)]
    assert out.flushes == 1
    bus.publish(ItemDelta("msg_1", "output_text", "later"))  # a later event is flushed on its own
    await bus.drain()
    await asyncio.sleep(0)
    assert out.flushes == 2 and out.getvalue().endswith('"later", "index": null}\n')
    await bus.close()
