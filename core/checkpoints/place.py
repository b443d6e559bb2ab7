"""Where a workspace's checkpoint store lives: `<data dir>/rivulet/checkpoints/<key>/`, the
key a hash of the workspace's real path (a link to it is the same workspace), never inside
it. Its own module: a start that only looks for an interrupted restore (recovery.py), and
the turn lock, need the place without the store, its walk or its objects."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def default_root() -> Path:
    override = os.environ.get("RIVULET_CHECKPOINTS_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_dir  # imported when it is asked (a few ms of a start)

    return Path(user_data_dir("rivulet")) / "checkpoints"


def store_dir(workspace: Path, root: Path | None = None) -> Path:
    """The folder of `workspace`'s checkpoints (`root`: the checkpoints' root, default
    `default_root()`)."""
    real = os.path.realpath(workspace)
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:20]
    return (root or default_root()) / key
