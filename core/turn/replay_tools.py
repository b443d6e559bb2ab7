"""The tools of a replay: calls are shown as recorded, never run.

A recording holds what the server sent, not what the client ran, so a replayed call
gets an output that says so. While the recording has more responses, the turn goes
on to the next one (a recorded multi-step run plays through); after the last call of
its last response the turn stops there, so that no follow-up is asked of a recording
that has none.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from rivulet.core import items as it
from rivulet.core.turn.tool_api import NoTools, StopTurn

NOT_RUN = "not run: a replay shows the recorded call"
RECORDING_ENDS = "the recording ends here"


class _Recording(Protocol):
    payloads: list[str]


class Player(Protocol):
    """What a replay transport tells: its recordings, and how many it has played. Read-only
    here (properties), so a transport's `list[Recording]` fits `Sequence[_Recording]`."""

    @property
    def recordings(self) -> Sequence[_Recording]: ...

    @property
    def played(self) -> int: ...


def call_ids(payloads: Sequence[str]) -> list[str]:
    """The call ids of the client calls a recorded response commits, in order."""
    found: list[str] = []
    for data in payloads:
        try:
            event = json.loads(data)
        except ValueError:
            continue
        item = event.get("item") if isinstance(event, dict) and event.get("type") == "response.output_item.done" \
            else None
        cid = it.call_id(item) if isinstance(item, dict) and it.is_call(item) else None
        if cid and cid not in found:
            found.append(cid)
    return found


class ReplayTools(NoTools):
    """A recording's calls are shown, never run: no turn hooks, hosted approvals declined."""

    def __init__(self, player: Player) -> None:
        self.player = player

    def specs(self) -> list[dict[str, Any]]:
        return []

    async def run(self, call: it.Item) -> it.Item:
        output = it.aborted_output(call, NOT_RUN)
        recordings = self.player.recordings
        if self.player.played < len(recordings):
            return output  # the next recorded response follows
        ids = call_ids(recordings[-1].payloads) if recordings else []
        if it.call_id(call) in ids[:-1]:
            return output  # more calls of the last response are still to show
        raise StopTurn(output, RECORDING_ENDS)
