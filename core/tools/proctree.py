"""Nothing a tool starts may outlive it.

A command can leave its process group (`setsid`), detach (`nohup ... &`, a double
fork) or ignore SIGHUP; killing its group misses all of those. So rivulet makes itself
a child subreaper (prctl PR_SET_CHILD_SUBREAPER): an orphan of a tool is reparented
to rivulet, not to init, and stays findable. When a tool ends (done, timed out or
interrupted) `kill_tree` stops and kills every descendant of the tool's process and
every orphan adopted since the tool started, round after round until none is left,
and reaps the adopted ones. Linux only (elsewhere only the process group is killed).

Tools run at once (subagents, issue 41): a child of rivulet that another running tool
started is no orphan of this one. Each tool process gets a token in its environment
before it starts (`start_tool`, `TOKEN_VAR`: what it starts inherits it), and its pid
once asyncio hands it back (`running`); an unknown child that carries another running
tool's token, or is another running tool's process, is left alone. Before, the first
command to end killed (and reaped) every command and hook started after it.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import time

PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None
TOKEN_VAR = "RIVULET_TOOL_RUN"
_tokens: set[str] = set()  # the running tools' tokens
_running: set[int] = set()  # the running tools' own processes
_EXEC_TRIES = 50  # ms to wait for the environment of a process that is in its exec


def start_tool() -> str:
    """A token for a tool about to start its process (put it in its environment as
    TOKEN_VAR); until `end_tool`, no other tool's end kills what carries it."""
    token = secrets.token_hex(8)
    _tokens.add(token)
    return token


def running(pid: int) -> None:
    """The tool's process, once started (its environment may not be readable: a setuid bwrap)."""
    _running.add(pid)


def end_tool(token: str, pid: int | None) -> None:
    _tokens.discard(token)
    if pid is not None:
        _running.discard(pid)


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (once; True if it is)."""
    global _subreaper
    if _subreaper is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _subreaper = False
    return _subreaper


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process we can see."""
    out: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[int(name)] = int(fields[1])
    return out


def children_of_me() -> set[int]:
    me = os.getpid()
    try:
        return {pid for pid, parent in _parents().items() if parent == me}
    except OSError:
        return set()


def _descendants(roots: set[int], parents: dict[int, int]) -> set[int]:
    kids: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        kids.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in kids.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def kill_tree(root: int, known_children: set[int], token: str | None = None) -> int:
    """Kill `root`'s process group, its descendants and every child of ours that was
    not in `known_children` (an orphan the tool left behind), but another running
    tool's (`token`: this tool's own). How many were killed."""
    me = os.getpid()
    try:
        os.killpg(root, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    killed: set[int] = set()
    # A process may fork while we look, and a killed one stays "alive" until the kernel
    # has run its exit (on a loaded machine, many milliseconds): go again until nothing
    # is left, pausing a little once a round only found the already-killed.
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            parents = _parents()
        except OSError:
            break
        # `root` is asyncio's child (it reaps it); every other new child of ours is an orphan,
        # but another tool's running process and what it left in its session.
        adopted = _orphans({pid for pid, parent in parents.items() if parent == me and pid not in known_children},
                           root, token)
        targets = (_descendants({root} | adopted, parents) | adopted | ({root} if root in parents else set()))
        targets -= {me}
        targets = {pid for pid in targets if _alive(pid)}
        if not targets:
            break
        if targets <= killed:
            time.sleep(0.002)
        for pid in targets:
            for sig in (signal.SIGSTOP, signal.SIGKILL):  # stopped first: it cannot fork any more
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        killed |= targets
        for pid in targets & adopted:  # ours now: reap them, or they stay zombies
            _reap(pid)
    try:  # orphans that had already exited on their own are zombies of ours too
        for pid in _orphans({pid for pid, parent in _parents().items() if parent == me and pid not in known_children},
                            root, token):
            if not _alive(pid):
                _reap(pid)
    except OSError:
        pass
    return len(killed)


def _orphans(new_children: set[int], root: int, token: str | None) -> set[int]:
    """Of the children of ours `root`'s tool did not know, those that are no other running tool's."""
    others, pids = _tokens - {token}, _running - {root}
    return {pid for pid in new_children - {root} if pid not in pids and _token_of(pid) not in others}


def _token_of(pid: int) -> str | None:
    """The tool token in the process's environment (as it started), if it can be read.
    A process in the middle of its exec shows none for a moment (its parent's Popen has
    returned): wait for it a little (a process exiting shows none for good, and a kill
    changes nothing for it)."""
    env = b""
    for _ in range(_EXEC_TRIES):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read(1 << 20)
        except OSError:
            return None
        if env or not _alive(pid):
            break
        time.sleep(0.001)
    key = TOKEN_VAR.encode() + b"="
    for entry in env.split(b"\0"):
        if entry.startswith(key):
            return entry[len(key):].decode("ascii", "replace")
    return None


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X")


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
