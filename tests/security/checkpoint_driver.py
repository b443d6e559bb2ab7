"""Runs one checkpointed turn and its /undo as the user the test names, and prints what
came of it as JSON (the checkpoint tests start it as root and as nobody).

`--uid N --gid M`: everything is imported first, then the driver drops to that user
(as sandbox_driver.py does). Input (JSON on stdin): workspace, data (the store's root),
setup (a shell command run first, as that user), command (the turn's shell command),
umask (set before anything is made), loose_lock (the turn lock's file made 0644 first, as
an older rivulet or another umask would leave it). The turn and the undo hold the
workspace's turn lock, as the engine's do; `modes` is every path of the store's folder."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures.thread  # noqa: F401  (asyncio.to_thread's, imported before the drop)
import difflib  # noqa: F401  (what rivulet imports lazily, imported before the drop)
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pathspec  # noqa: F401
import platformdirs  # noqa: F401  (what the store imports lazily: a folder nobody cannot enter)

from rivulet.core.checkpoints import actions, restore  # noqa: F401  (imported before the drop)
from rivulet.core.checkpoints.place import store_dir
from rivulet.core.checkpoints.turn_lock import RESTORING, TurnLock
from rivulet.core.checkpoints.turns import TurnCheckpoints
from rivulet.core.errors import RivuletError
from rivulet.core.store import session  # noqa: F401
from rivulet.core.tools import patch_apply, patch_format, shell  # noqa: F401  (imported with the first call)
from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings


def state(ws: Path) -> dict[str, list]:
    out: dict[str, list] = {}
    for top, dirs, files in os.walk(ws):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs + files:
            p = Path(top) / name
            st = p.lstat()
            rel = p.relative_to(ws).as_posix()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ["link", os.readlink(p)]
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ["dir", stat.S_IMODE(st.st_mode)]
            else:
                out[rel] = ["file", stat.S_IMODE(st.st_mode), p.read_bytes().decode("latin-1")]
    return out


async def _run(job: dict) -> dict:
    ws = Path(job["workspace"])
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ws), "GIT_CONFIG_NOSYSTEM": "1"}
    if job.get("setup"):
        subprocess.run(["bash", "-c", job["setup"]], cwd=ws, check=True, env=env, capture_output=True)
    if job.get("loose_lock"):
        folder = store_dir(ws, Path(job["data"]))
        folder.mkdir(parents=True)
        (folder / "turn.lock").touch(0o644)
        os.chmod(folder / "turn.lock", 0o644)
    tools = AgentTools(ToolSettings(workspace=ws, sandbox="off"), ApprovalPolicy("never-ask", _yes))
    lock = TurnLock(ws, "S", root=Path(job["data"]))
    cps = TurnCheckpoints(ws, "S", root=Path(job["data"]), lock=lock)
    tools.checkpoints, tools.turn_lock = cps, lock
    before = state(ws)
    tools.start_turn()
    call = {"type": "function_call", "id": "fc", "call_id": "c1", "name": "shell",
            "arguments": json.dumps({"command": job["command"], "workdir": None, "timeout_ms": 30000,
                                     "justification": None})}
    output = (await tools.run(call))["output"]
    tools.end_turn(1)
    cps.wait()
    after = state(ws)
    error = None
    try:
        p = actions.propose(cps.store, "S", "undo")
        assert p is not None, "no checkpoint"
        lock.hold_blocking(RESTORING)
        try:
            actions.carry_out(cps.store, p)
        finally:
            lock.release()
    except RivuletError as exc:
        error = exc.message
    return {"uid": os.getuid(), "output": output, "before": before, "after": after, "undone": state(ws),
            "error": error, "modes": _modes(store_dir(ws, Path(job["data"])))}


def _modes(folder: Path) -> dict[str, list]:
    """Every path under the store's folder: [kind, mode, owner]."""
    out: dict[str, list] = {".": ["dir", stat.S_IMODE(folder.stat().st_mode), folder.stat().st_uid]}
    for p in folder.rglob("*"):
        st = p.lstat()
        out[p.relative_to(folder).as_posix()] = ["dir" if stat.S_ISDIR(st.st_mode) else "file",
                                                 stat.S_IMODE(st.st_mode), st.st_uid]
    return out


async def _yes(_request: object) -> Decision:
    return Decision.YES


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uid", type=int)
    ap.add_argument("--gid", type=int)
    args = ap.parse_args()
    job = json.loads(sys.stdin.read())
    if args.uid is not None:
        os.setgroups([])
        os.setgid(args.gid)
        os.setuid(args.uid)
    if "umask" in job:
        os.umask(job["umask"])
    print(json.dumps(asyncio.run(_run(job))))


if __name__ == "__main__":
    main()
