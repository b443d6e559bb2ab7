"""A turn whose model makes the same call again and again is stopped (issue 42.4).

Small local models loop: they resend a call that failed, with the same arguments, and get
the same output, until `max_follow_ups` (70 s of identical refusals in a field run; with
`--approval auto` one loop wrote into a file each time). The third identical call (the
same tool, the same arguments, the same output but for the durations in it) ends the turn with one line; history
keeps everything, so the user can say what to do differently and continue.
"""

from __future__ import annotations

import json
import re

from rivulet.core import items as it
from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import one_row

REPEATS = 3  # the identical call that stops the turn: the third
# A duration in a tool's output ("Wall time: 0.9 seconds", pytest's "1 passed in 0.55s"):
# the same command rerun differs only there, so it is not what makes two runs differ (with
# the real llama-server the model reran passing tests for minutes, each run 0.1 s apart).
_DURATION = re.compile(r"\d+(?:\.\d+)?\s?(?:ms|s|sec|secs|seconds?)\b")


class RepeatedCall(RivuletError):
    kind = "repeated_call"


def _asked(call: it.Item) -> str:
    """The call without its ids: what the model asked for."""
    return json.dumps({k: v for k, v in call.items() if k not in ("id", "call_id", "status")}, sort_keys=True,
                      default=str)


def _got(output: it.Item) -> str:
    """The output's content, its durations left out."""
    got = {k: v for k, v in output.items() if k not in ("id", "call_id", "status")}
    return _DURATION.sub("#s", json.dumps(got, sort_keys=True, default=str))


class RepeatGuard:
    """One turn's calls and outputs, counted. An output is read (its durations taken out:
    a regex over all of it, ~1 ms for 10 kB) only once its call has been asked for
    REPEATS times: a turn of calls that differ, or one long output, costs one JSON dump."""

    def __init__(self) -> None:
        self._outputs: dict[str, list[it.Item | str]] = {}  # a call as asked -> its outputs (read: as strings)

    def check(self, call: it.Item, output: it.Item) -> None:
        """Count this call; raise RepeatedCall at its REPEATS-th identical run."""
        outputs = self._outputs.setdefault(_asked(call), [])
        outputs.append(output)
        if len(outputs) < REPEATS:
            return
        outputs[:] = [seen if isinstance(seen, str) else _got(seen) for seen in outputs]  # each read once
        if outputs.count(outputs[-1]) >= REPEATS:
            name = one_row(str(call.get("name") or it.item_type(call)))[:40]
            raise RepeatedCall(f"stopped: the model repeated the same call {REPEATS} times ({name}, the same "
                               "arguments and the same output); send a message to continue")
