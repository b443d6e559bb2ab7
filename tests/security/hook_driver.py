"""Runs one hook under the hooks' sandbox and prints what came of it as JSON: the hook
sandbox tests start it as root and as nobody (as sandbox_driver.py does for the shell
tool), so that the sandbox is built for the uid that runs the hook.

Input (JSON on stdin): workspace, command (an argv), secret (held in this process's
environment, as rivulet holds the API key).

With `shell` (issue 35): one turn's tool call instead, the model's shell command run
through the real router (its sandbox `workspace-write`, policy `auto`, the approver
answering `answers` in order, then no), with the hook `command` on `event` (default
after_tool) attached as the chat attaches it, under `hooks_sandbox` (default off). Its
answer says what was asked, the hook notes and the call's output."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
from pathlib import Path

from rivulet.core.hooks.dispatch import Hooks
from rivulet.core.hooks.events import HookNote
from rivulet.core.hooks.runner import run_hook
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.tools import protected
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.sandbox import Sandbox, probe
from rivulet.core.turn.bus import EventBus

try:
    from rivulet.core.hooks.wiring import wire_tools
except ImportError:  # an older checkout (these tests are run there too, to see them fail): the hooks alone
    def wire_tools(hooks: Hooks, tools: AgentTools) -> None:
        tools.hooks = hooks


async def _run(job: dict) -> dict:
    ws = Path(job["workspace"])
    secret = job.get("secret", "")
    result = await run_hook(HookSpec("after_patch", tuple(job["command"]), 60), {"event": "after_patch"}, ws,
                            sandbox=Sandbox("workspace-write", ws), secrets=(secret,) if secret else ())
    return {"stdout": result.stdout, "stderr": result.stderr, "exit": result.exit_code, "sandboxed": probe().ok,
            "probe": probe().reason, "uid": os.getuid()}


async def _turn(job: dict) -> dict:
    ws = Path(job["workspace"])
    answers = [Decision(a) for a in job.get("answers", [])]
    asked: list[dict] = []

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append({"kind": request.kind, "title": request.title, "protected": request.protected})
        return answers.pop(0) if answers else Decision.NO

    bus = EventBus()
    notes: list[str] = []
    bus.subscribe(lambda n: notes.append(n.line()), HookNote)
    tools = AgentTools(ToolSettings(workspace=ws, sandbox="workspace-write"), ApprovalPolicy("auto", approver), bus)
    hooks = Hooks([HookSpec(job.get("event", "after_tool"), tuple(job["command"]), 60)], ws, bus,
                  Sandbox(job.get("hooks_sandbox", "off"), ws))
    wire_tools(hooks, tools)
    call = {"type": "function_call", "id": "fc", "call_id": "c1", "name": "shell",
            "arguments": json.dumps({"command": job["shell"], "workdir": None, "timeout_ms": 30000,
                                     "justification": None, "outside_sandbox": None})}
    output = (await tools.run(call))["output"]
    await bus.drain()
    return {"output": output, "asked": asked, "notes": notes, "sandboxed": probe().ok, "probe": probe().reason,
            "uid": os.getuid()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uid", type=int)
    parser.add_argument("--gid", type=int)
    args = parser.parse_args()
    job = json.loads(sys.stdin.read())
    for module in ("pyseccomp", "rivulet.core.tools.protected_snapshot", "rivulet.core.tools.protected_guard",
                   "rivulet.core.tools.shell", "rivulet.core.tools.patch_apply", "rivulet.core.tools.patch_format",
                   "rivulet.core.hooks.unsandboxed", "difflib", "ctypes"):  # out of reach after the drop
        try:
            importlib.import_module(module)
        except ImportError:  # (an older checkout)
            pass
    protected.rivulet_dirs()
    if args.uid is not None:
        os.setgroups([])
        os.setgid(args.gid)
        os.setuid(args.uid)
    if job.get("secret"):
        os.environ["OPENAI_API_KEY"] = job["secret"]
    print(json.dumps(asyncio.run(_turn(job) if "shell" in job else _run(job))))


if __name__ == "__main__":
    main()
