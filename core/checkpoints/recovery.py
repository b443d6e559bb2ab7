"""Recovery at every start: a restore killed midway leaves its journal, and the workspace
mixed (some files put back, some not) until something finishes it. Before, only the next
use of the checkpoint store did, so a chat that was started and quit, or an `exec` that
ran no tool, left it mixed (issue 36). Every command that opens a workspace (the chat,
`resume`, plain mode, `exec`, `rivulet undo`) calls `recover_at_start` first, before
anything else touches its files, and says the line it returns.

A start with no journal costs one stat: the store (its walk, hashing) is imported only
when there is one to finish.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from rivulet.core.checkpoints.place import store_dir
from rivulet.core.command_name import command_name

log = logging.getLogger(__name__)

ROLLED_BACK = "An interrupted restore of this workspace's files was rolled back: every file is as it was before it"
FINISHED = "An interrupted restore of this workspace's files was finished: every file is as it put them"


def recover_at_start(workspace: Path, root: Path | None = None) -> str | None:
    """Roll a restore killed midway back (or, if it was complete, finish it). The line to
    say when something was done; None when there was nothing to do."""
    if not os.path.exists(store_dir(workspace, root) / "journal.json"):
        return None
    from rivulet.core.checkpoints.restore import recover
    from rivulet.core.checkpoints.store import CheckpointStore

    store = CheckpointStore(workspace, root)
    try:
        with store.locked(recover_first=False):  # a restore under way in another process ends first
            done = recover(store)
    except OSError as exc:
        log.warning("an interrupted restore could not be finished: %s", exc)
        return (f"An interrupted restore of this workspace's files could not be finished "
                f"({exc.strerror or exc}); `{command_name()} undo` tries again")
    if done is None:
        return None
    return FINISHED if done == "finished" else ROLLED_BACK
