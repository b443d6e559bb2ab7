"""asyncio's private API, every use of it in rivulet (tested on CPython 3.11-3.13).

Canary: tests/core/test_compat_asyncio.py.
"""

from __future__ import annotations

import asyncio


def close_process_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close a finished child's pipes now (`Process._transport`), not when its transport
    is garbage collected: maybe after its event loop has closed, which raises from
    `__del__`. asyncio has no public way to close them."""
    proc._transport.close()  # type: ignore[attr-defined]
