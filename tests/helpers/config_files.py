"""Config files of a test's own."""

from __future__ import annotations

from pathlib import Path


def empty_config(path: Path) -> Path:
    """$RIVULET_CONFIG must name an existing file: an empty one keeps a test away from the user's config."""
    path.touch()
    return path
