"""A response stream that lets the rest of the program run while it is read.

When the server has sent faster than the client reads, every read of the stream
returns at once from a buffer, and a coroutine that never suspends never lets the
event loop run anything else: in the chat, 10,000 buffered items kept every key and
every frame waiting until the whole response was parsed. `taking_turns` hands the
loop over every few milliseconds of reading, which costs nothing when the stream is
slower than that (it suspends on its own) and a few microseconds when it is not.

A turn of the loop is one step of each ready task, and a step of the reader is a whole
slice: a front end whose work is many short steps (a key's hops, a batch's awaits) gets
one of them per slice. So how the reader gives way is the bus's (`EventBus.give_way`):
the chat makes it wait while a typed key is on its way to the screen.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

SLICE = 0.004  # seconds of reading before the loop's other tasks get a turn


GiveWay = Callable[[], Awaitable[None]]


async def next_turn() -> None:
    """One turn of the loop for everything else that is ready."""
    await asyncio.sleep(0)


async def taking_turns(events: AsyncIterable[T], slice_seconds: float | None = None,
                       give_way: GiveWay = next_turn) -> AsyncGenerator[T, None]:
    if slice_seconds is None:
        slice_seconds = SLICE
    last = time.monotonic()
    async for event in events:
        yield event
        now = time.monotonic()
        if now - last >= slice_seconds:
            await give_way()
            last = time.monotonic()
