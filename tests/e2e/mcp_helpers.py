"""Shared pieces of the MCP end-to-end tests: the test server's config, processes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from helpers.paths import ROOT

SERVER = ROOT / "tests" / "peers" / "mcp_server.py"


def stdio_table(marks: Path, **extra) -> dict:
    # A generous startup timeout: a loaded CI machine must not turn a slow start into a failure.
    return {"command": sys.executable, "args": [str(SERVER)], "env": {"MCP_TEST_MARKS": str(marks)},
            "startup_timeout": 60, **extra}


def wait_for(predicate, what: str, timeout: float = 20.0):
    """Poll until predicate() is truthy (no fixed sleep decides a result)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def marks(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def descendants(pid: int | None = None) -> set[int]:
    """Every living (not zombie) process below `pid` (default: this one), from /proc."""
    root = pid or os.getpid()
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
