"""Runs one checkpointed turn and its /undo as the user the test names, and prints what
came of it as JSON (the checkpoint tests start it as root and as nobody).

`--uid N --gid M`: everything is imported first, then the driver drops to that user
(as sandbox_driver.py does). Input (JSON on stdin): workspace, data (the store's root),
setup (a shell command run first, as that user), command (the turn's shell command)."""

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
    tools = AgentTools(ToolSettings(workspace=ws, sandbox="off"), ApprovalPolicy("never-ask", _yes))
    cps = TurnCheckpoints(ws, "S", root=Path(job["data"]))
    tools.checkpoints = cps
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
        actions.carry_out(cps.store, p)
    except RivuletError as exc:
        error = exc.message
    return {"uid": os.getuid(), "output": output, "before": before, "after": after, "undone": state(ws),
            "error": error}


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
    print(json.dumps(asyncio.run(_run(job))))


if __name__ == "__main__":
    main()
