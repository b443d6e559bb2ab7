"""A per-event idle timeout (seconds without a complete event) that costs one clock read per event.

`asyncio.timeout()` around every `anext()` costs ~11 µs here, more than parsing the
event. Instead one timer per stream checks the time of the last activity and only
when the stream really was idle for `seconds` cancels the reading task, which the
context manager turns into a `StreamError`.
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from rivulet.core.errors import StreamError


class IdleWatchdog:
    def __init__(self, seconds: float | None, what: str = "the server") -> None:
        self.seconds = seconds
        self.what = what
        self._loop = asyncio.get_running_loop()
        self.last = self._loop.time()
        self._task: asyncio.Task[object] | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.fired = False
        self.held = False

    def touch(self) -> None:
        """Record activity: the stream started (only complete events count after that)."""
        self.last = self._loop.time()

    def waiting(self, reset: bool = True) -> None:
        """The reader is waiting on the network again. After a complete event the
        clock runs from now; after bytes that completed none it keeps running from
        the last event (a keep-alive comment or a trickle does not keep a dead stream
        alive)."""
        if reset:
            self.last = self._loop.time()
        self.held = False

    def hold(self) -> None:
        """The consumer has the event: time it spends (even awaiting a user's approval)
        is not server idleness, so the timer never fires while held."""
        self.held = True

    def _check(self) -> None:
        assert self.seconds is not None
        now = self._loop.time()
        if self.held:
            self._handle = self._loop.call_at(now + self.seconds, self._check)
            return
        due = self.last + self.seconds
        if now >= due:
            self.fired = True
            if self._task is not None:
                self._task.cancel()
        else:
            self._handle = self._loop.call_at(due, self._check)

    async def __aenter__(self) -> IdleWatchdog:
        if self.seconds is not None and self.seconds > 0:
            self._task = asyncio.current_task()
            self.touch()
            self._handle = self._loop.call_at(self.last + self.seconds, self._check)
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._handle is not None:
            self._handle.cancel()
        if self.fired and et is asyncio.CancelledError and self._task is not None:
            self._task.uncancel()
            raise StreamError(f"no event from {self.what} for {self.seconds:g}s (idle timeout)") from None
