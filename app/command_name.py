"""The command the user started rivulet with, for hints ("To resume this session: …"):
`scripts/run` sets RIVULET_COMMAND to the path it was called by, since a user who
started there has no `rivulet` on PATH (issue 25)."""

from __future__ import annotations

import os
import shlex


def command_name() -> str:
    name = os.environ.get("RIVULET_COMMAND", "").strip()
    return shlex.quote(name) if name else "rivulet"
