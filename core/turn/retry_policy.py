"""How long a request is retried, and how long a local server that is restarting is
waited for (issue 42.7).

The backoff (0.5 s, 1 s, 2 s, 4 s with `max_retries = 4`) gives up after some 7 s: fine
for a remote server's hiccup, too short for a local one being restarted, which takes
seconds to load its model (llama-server refuses connections, then answers `503 Loading
model` meanwhile). So, for a local server (a local preset or a local base URL) that is
not up, the request is tried again every RESTART_STEP seconds at most until RESTART_WAIT
seconds of waiting have passed, the time left said with each retry (`Retrying.gives_up_in`).
A refused connection counts only once this conversation has had an answer from the
server (a port nobody ever answered on is a typo, said after the usual retries); a 503
is the server itself saying it is not ready. `max_retries = 0` turns it off with the rest.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import msgspec

from rivulet.core.errors import ApiError, RivuletError, ServerUnreachable

if TYPE_CHECKING:
    from rivulet.core.config import Settings

RESTART_WAIT = 60.0  # seconds of waiting for a local server that is (re)starting
RESTART_STEP = 2.0  # the longest pause between two tries meanwhile
NOT_READY = 503  # llama-server's answer while it loads the model ("Loading model")


class RetryPolicy(msgspec.Struct, dict=True):
    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    restart_wait: float = 0.0  # seconds a local server that is not up is waited for (0: not)

    @classmethod
    def for_settings(cls, settings: Settings) -> RetryPolicy:
        from rivulet.core.capabilities import is_local_server

        local = is_local_server(settings) and settings.max_retries > 0
        return cls(max_retries=settings.max_retries, restart_wait=RESTART_WAIT if local else 0.0)

    def delay(self, attempt: int, error: RivuletError) -> float:
        if error.retry_after is not None:  # capped by the caller (max_retry_wait), never silently
            return error.retry_after
        backoff = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return backoff * (0.8 + 0.4 * random.random())  # jitter: ±20%

    def waits_for(self, error: RivuletError, answered_before: bool) -> bool:
        """A local server that is not up yet, and worth waiting for: it loads its model
        (503), or it refuses connections after it answered this conversation before."""
        if self.restart_wait <= 0:
            return False
        if isinstance(error, ApiError):
            return error.status == NOT_READY
        return isinstance(error, ServerUnreachable) and answered_before


class RestartWait:
    """One request's wait for a local server that is not up: how long is left."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.waited = 0.0

    def left(self) -> float:
        return max(0.0, self.policy.restart_wait - self.waited)

    def pause(self, backoff: float) -> float:
        """The pause before the next try (counted as waited): the backoff, at most a step
        and what is left."""
        delay = min(backoff, RESTART_STEP, self.left())
        self.waited += delay
        return delay


WAITING = "waiting for the local server to come back"


def waiting_text(gives_up_in: float) -> str:
    """What every front end says of the wait (`Retrying.gives_up_in`), as a countdown."""
    return f"{WAITING}: {gives_up_in:.0f}s left"
