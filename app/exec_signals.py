"""What `rivulet exec` tells a person at the terminal while its turn runs: one dim line
per retry, and Ctrl-C as one `interrupted` line with exit status 130.

Ctrl-C cancels the turn task, as the chat's Esc cancels its worker: the conversation
records the interrupt (calls without a result aborted, the turn marked interrupted in the
session file), so the session resumes. A second Ctrl-C is the system's own: it ends the
process at once, should the clean-up hang.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import TYPE_CHECKING

from rivulet.core.sanitize import sanitize
from rivulet.core.turn.retry_policy import waiting_text

if TYPE_CHECKING:
    from rivulet.core.turn.bus import Retrying

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process Ctrl-C ended
_DIM, _RESET = "\x1b[2m", "\x1b[0m"


def say_interrupted() -> int:
    # On a terminal the line starts fresh: the terminal has echoed ^C where the cursor was.
    print(f"{chr(10) if sys.stderr.isatty() else ''}rivulet: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


class InterruptTurn:
    """While installed, the first SIGINT cancels `task` instead of raising
    KeyboardInterrupt somewhere in the event loop (two chained tracebacks)."""

    def __init__(self, task: asyncio.Future[object]) -> None:
        self.task = task
        self.fired = False
        self._loop = asyncio.get_running_loop()
        self._loop.add_signal_handler(signal.SIGINT, self._on_sigint)

    def _on_sigint(self) -> None:
        self.fired = True
        self.remove()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a second Ctrl-C ends the process
        self.task.cancel()

    def remove(self) -> None:
        self._loop.remove_signal_handler(signal.SIGINT)


class RetryLines:
    """A bus subscriber: `retrying in Ns (n/4): reason` on stderr for each retry (while a
    local server restarts, the seconds left instead of n/4), dim on a terminal. exec
    leaves it out with --quiet and --json (whose `retrying` event says it)."""

    def __init__(self) -> None:
        self._dim = sys.stderr.isatty() and "NO_COLOR" not in os.environ

    def __call__(self, event: Retrying) -> None:
        reason = sanitize(f"{event.error.kind}: {event.error.message}")
        count = (f"{event.attempt}/{event.max_attempts}" if event.gives_up_in is None
                 else waiting_text(event.gives_up_in))  # a local server restarting: the time left
        line = f"rivulet: retrying in {_seconds(event.delay)} ({count}): {reason}"
        print(f"{_DIM}{line}{_RESET}" if self._dim else line, file=sys.stderr, flush=True)


def _seconds(delay: float) -> str:
    return f"{delay:.0f}s" if delay >= 10 else f"{delay:.1f}s"
