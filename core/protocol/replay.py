"""Replay: a recorded stream (`.sse`, or `.jsonl` with one payload a line) played as
if a server were sending it, at the recorded pace or any other.

`ReplayTransport` answers the n-th request with the n-th recorded response (a `.jsonl`
file may hold several: each `response.created` starts one), so a recorded multi-step
run plays through the real state machine, history, tool loop and UI. Recordings carry
no timings, so the pace is `rate` events a second, scaled by `speed`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any

from rivulet.core.errors import StreamError
from rivulet.core.protocol.events import ResponseEvent
from rivulet.core.protocol.payloads import response_events
from rivulet.core.protocol.recordings import load


class ReplayTransport:
    name = "replay"

    def __init__(self, path: Path, *, speed: float = 1.0, rate: float = 60.0) -> None:
        self.path = path
        self.recordings = load(path)
        if not self.recordings:
            raise StreamError(f"{path} holds no recorded stream")
        self.delay = 0.0 if speed <= 0 else 1.0 / (rate * speed)
        self.played = 0

    async def aclose(self) -> None:
        pass

    @property
    def background(self) -> None:  # a recording has no server to fetch from
        return None

    async def stream(self, body: dict[str, Any]) -> AsyncGenerator[ResponseEvent, None]:
        if self.played >= len(self.recordings):
            raise StreamError(f"the recording has only {len(self.recordings)} response(s)")
        recording = self.recordings[self.played]
        self.played += 1

        async def paced() -> AsyncIterator[str]:
            for data in recording.payloads:
                if self.delay:
                    await asyncio.sleep(self.delay)
                yield data

        async for event in response_events(paced()):
            yield event
