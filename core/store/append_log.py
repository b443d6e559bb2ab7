"""An append-only file of whole records, written by group commit, that survives a full disk.

- Every record is handed to the kernel (`os.write`) the moment it comes: a process
  killed at any moment loses nothing it had appended.
- `fsync` (what survives a power loss) runs at most every `interval` seconds while
  records stream, from a timer when they stop coming, and at once on `sync()` (a turn's
  end, before a tool runs, on close). 10,000 records in a second cost ~10 fsyncs, not
  10,000; a power loss loses at most the last `interval` of appends.
- A write that fails (disk full, I/O error) leaves the file as it was: a partly written
  record is cut off again, so the file is always whole records. The records wait in
  memory, in order, and are tried again at the next append (at most every `interval`)
  and at every `sync()`: once space is freed, saving resumes with nothing missing.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...


# (delay, callback) -> something with cancel(); a daemon threading.Timer by default.
Scheduler = Callable[[float, Callable[[], None]], Cancellable]


def _thread_timer(delay: float, callback: Callable[[], None]) -> Cancellable:
    timer = threading.Timer(delay, callback)
    timer.daemon = True
    timer.start()
    return timer


class AppendLog:
    """Owns `fd` (opened with O_APPEND) from here on; `close()` closes it."""

    def __init__(self, fd: int, *, fsync: Callable[[int], Any] = os.fsync, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic, schedule: Scheduler | None = _thread_timer) -> None:
        self.fd = fd
        self._fsync, self.interval, self._clock, self._schedule = fsync, interval, clock, schedule
        self._size = os.fstat(fd).st_size  # the end of the last whole record on disk
        self._pending = bytearray()  # records not yet written, in order
        self.pending_records = 0
        self.pending_items = 0  # of those, how many are conversation items (what a user would miss)
        self.error: OSError | None = None  # the last write or fsync failure, until one succeeds
        self._dirty = False  # written but not yet fsynced
        self._last_sync = clock()
        self._retry_at = 0.0
        self._timer: Cancellable | None = None
        # The timer's fsync runs on its own thread: it must not race close() for the fd.
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return self._size

    def append(self, data: bytes, *, records: int = 1, items: int = 0) -> None:
        with self._lock:
            if self.fd < 0:
                return
            self._pending += data
            self.pending_records += records
            self.pending_items += items
            now = self._clock()
            if self.error is None or now >= self._retry_at:
                self._write_pending(now)
            if self._dirty and now - self._last_sync >= self.interval:
                self._sync_now()
            elif self._dirty:
                self._arm(self._last_sync + self.interval - now)

    def sync(self) -> None:
        """Write what waits and make it durable now."""
        with self._lock:
            if self.fd < 0:
                return
            self._write_pending(self._clock())
            if self._dirty:
                self._sync_now()

    def try_write(self, data: bytes) -> bool:
        """One attempt to write `data` now (whole, or not at all), not kept for later: a last
        note before closing, when what waits could not be written."""
        with self._lock:
            if self.fd < 0:
                return False
            try:
                done = os.write(self.fd, data)
            except OSError:
                return False
            if done < len(data):
                self._cut_back()
                return False
            self._size += done
            self._dirty = True
            return True

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self.fd >= 0:
                if self._dirty:
                    self._sync_now()
                os.close(self.fd)
                self.fd = -1

    def _write_pending(self, now: float) -> None:
        if not self._pending:
            return
        view = memoryview(self._pending)
        done = 0
        try:
            while done < len(view):
                done += os.write(self.fd, view[done:])
        except OSError as exc:
            self.error = exc
            self._retry_at = now + self.interval
            if done:
                self._dirty = True
                self._cut_back()
            return
        finally:
            view.release()
        self._size += done
        self._pending.clear()
        self.pending_records = self.pending_items = 0
        self._dirty = True
        self.error = None

    def _cut_back(self) -> None:
        """Take off the part of a record a failed write left, so the file ends on a whole one."""
        try:
            os.ftruncate(self.fd, self._size)
        except OSError:
            pass  # the next reader ignores the torn line, the next writer truncates it

    def _sync_now(self) -> None:
        try:
            self._fsync(self.fd)
        except OSError as exc:
            self.error = exc
            return
        self._dirty = False
        self._last_sync = self._clock()
        if self.error is not None and not self._pending:
            self.error = None

    def _arm(self, delay: float) -> None:
        if self._timer is None and self._schedule is not None:
            self._timer = self._schedule(max(0.0, delay), self._timed_sync)

    def _timed_sync(self) -> None:
        """The appends stopped: what they wrote reaches the disk `interval` after the last fsync."""
        with self._lock:
            self._timer = None
            if self.fd >= 0 and self._dirty:
                self._sync_now()
