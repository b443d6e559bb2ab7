"""The tools of a replay: calls are shown as recorded, never run.

A recording holds what the server sent, not what the client ran, so a replayed call
gets an output that says so. While the recording has more responses, the turn goes
on to the next one (a recorded multi-step run plays through); at its last response
the turn stops there, so that no follow-up is asked of a recording that has none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rivulet.core import items as it
from rivulet.core.turn.tool_api import StopTurn

NOT_RUN = "not run: a replay shows the recorded call"
RECORDING_ENDS = "the recording ends here"


class ReplayTools:
    def __init__(self, remaining: Callable[[], int]) -> None:
        self.remaining = remaining  # how many recorded responses are still to play

    def specs(self) -> list[dict[str, Any]]:
        return []

    async def run(self, call: it.Item) -> it.Item:
        output = it.aborted_output(call, NOT_RUN)
        if self.remaining() <= 0:
            raise StopTurn(output, RECORDING_ENDS)
        return output
