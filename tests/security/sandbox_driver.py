"""Runs one model `shell` call through rivulet's real tool router and prints what came of
it as JSON: the sandbox tests start it as root and as nobody, so that the sandbox is
tested for the uid it actually runs as.

`--uid N --gid M` (given when the tests run as root): the driver imports everything it
will use, then drops to that user itself (setgroups, setgid, setuid: every capability
goes, as with setpriv). A CI clone may lie in a folder nobody cannot enter; the imports
are done before the drop, so only the sandbox's own programs must be reachable.

Input (JSON on stdin): workspace, command (`{pid}` becomes this process's pid), or
commands (run in turn by the same router, as one session's calls; `outputs` has each
one's output), policy, sandbox, answers (the approver's decisions, in order), secret
(held in this process's memory and environment, as rivulet holds the API key),
max_entries (the protected-path walk's cap on names, lowered so that a test can pass it
with a small flood: this disk makes ~3,000 files a second)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
from pathlib import Path

from rivulet.core.tools import protected
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.sandbox import probe
from rivulet.core.turn.bus import EventBus, Notice
from rivulet.core.turn.tool_api import StopTurn


async def _run(job: dict) -> dict:
    asked: list[dict] = []
    answers = [Decision(a) for a in job.get("answers", [])]

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append({"kind": request.kind, "title": request.title, "protected": request.protected,
                      "sandboxed": request.sandboxed, "detail": request.detail})
        return answers.pop(0) if answers else Decision.NO

    bus = EventBus()
    notices: list[str] = []
    bus.subscribe(lambda e: notices.append(e.text), Notice)
    secret = job.get("secret", "")
    tools = AgentTools(ToolSettings(workspace=Path(job["workspace"]), sandbox=job.get("sandbox", "workspace-write"),
                                    secrets=(secret,) if secret else ()),
                       ApprovalPolicy(job.get("policy", "auto"), approver), bus)
    outputs = []
    stopped = False
    for command in job.get("commands") or [job["command"]]:
        call = {"type": "function_call", "id": "fc", "call_id": "c1", "name": "shell",
                "arguments": json.dumps({"command": command.replace("{pid}", str(os.getpid())), "workdir": None,
                                         "timeout_ms": 30000, "justification": None, "outside_sandbox": None})}
        try:
            outputs.append((await tools.run(call))["output"])
        except StopTurn as stop:
            outputs.append(stop.output["output"])
            stopped = True
            break
    await bus.drain()
    return {"output": outputs[-1], "outputs": outputs, "asked": asked, "notices": notices, "stopped": stopped,
            "sandboxed": probe().ok, "probe": probe().reason, "uid": os.getuid()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uid", type=int)
    parser.add_argument("--gid", type=int)
    args = parser.parse_args()
    job = json.loads(sys.stdin.read())
    # What rivulet imports lazily, loaded now: after the drop it may be out of reach. (Each
    # is optional: the same tests are run against older checkouts, to see them fail there.)
    for module in ("pyseccomp", "rivulet.core.tools.protected_guard", "rivulet.core.tools.protected_snapshot",
                   "rivulet.core.tools.shell", "rivulet.core.tools.patch_apply", "rivulet.core.tools.patch_format",
                   "rivulet.core.checkpoints.store", "pathspec", "difflib", "ctypes"):
        try:
            importlib.import_module(module)
        except ImportError:
            pass
    getattr(protected, "rivulet_dirs", getattr(protected, "_rivulet_dirs", None))()  # platformdirs, config
    if args.uid is not None:
        os.setgroups([])
        os.setgid(args.gid)
        os.setuid(args.uid)
    if job.get("secret"):
        os.environ["OPENAI_API_KEY"] = job["secret"]
    if job.get("max_entries"):
        importlib.import_module("rivulet.core.tools.protected_snapshot").MAX_ENTRIES = job["max_entries"]
    print(json.dumps(asyncio.run(_run(job))))


if __name__ == "__main__":
    main()
