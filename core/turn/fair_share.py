"""A response stream that lets the rest of the program run while it is read.

When the server has sent faster than the client reads, every read of the stream
returns at once from a buffer, and a coroutine that never suspends never lets the
event loop run anything else: in the chat, 10,000 buffered items kept every key and
every frame waiting until the whole response was parsed. `taking_turns` hands the
loop over every few milliseconds of reading, which costs nothing when the stream is
slower than that (it suspends on its own) and a few microseconds when it is not.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterable
from typing import TypeVar

T = TypeVar("T")

SLICE = 0.004  # seconds of reading before the loop's other tasks get a turn


async def taking_turns(events: AsyncIterable[T], slice_seconds: float = SLICE) -> AsyncGenerator[T, None]:
    last = time.monotonic()
    async for event in events:
        yield event
        now = time.monotonic()
        if now - last >= slice_seconds:
            await asyncio.sleep(0)
            last = time.monotonic()
