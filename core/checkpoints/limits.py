"""What a workspace's checkpoint store may hold. Its own module so that a run which takes
no checkpoint (a turn without tools) sets them without importing the store and its walk."""

from __future__ import annotations

import msgspec

MB = 1024 * 1024
MAX_ENTRIES = 300_000  # names one walk keeps; a workspace with more has no checkpoint (said)


class CheckpointLimits(msgspec.Struct, dict=True):
    file_bytes: int = 8 * MB  # a larger file is not kept (its change cannot be undone; said)
    turn_bytes: int = 256 * MB  # new bytes one walk may store; past it, files are not kept (said)
    keep: int = 100  # checkpoints kept per workspace, newest first
    total_bytes: int = 1024 * MB  # objects kept per workspace; the oldest checkpoints go first
    max_entries: int = MAX_ENTRIES
