"""Runs one hook under the hooks' sandbox and prints what came of it as JSON: the hook
sandbox tests start it as root and as nobody (as sandbox_driver.py does for the shell
tool), so that the sandbox is built for the uid that runs the hook.

Input (JSON on stdin): workspace, command (an argv), secret (held in this process's
environment, as rivulet holds the API key)."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import sys
from pathlib import Path

from rivulet.core.hooks.runner import run_hook
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.tools import protected
from rivulet.core.tools.sandbox import Sandbox, probe


async def _run(job: dict) -> dict:
    ws = Path(job["workspace"])
    secret = job.get("secret", "")
    result = await run_hook(HookSpec("after_patch", tuple(job["command"]), 60), {"event": "after_patch"}, ws,
                            sandbox=Sandbox("workspace-write", ws), secrets=(secret,) if secret else ())
    return {"stdout": result.stdout, "stderr": result.stderr, "exit": result.exit_code, "sandboxed": probe().ok,
            "probe": probe().reason, "uid": os.getuid()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--uid", type=int)
    parser.add_argument("--gid", type=int)
    args = parser.parse_args()
    job = json.loads(sys.stdin.read())
    for module in ("pyseccomp", "rivulet.core.tools.protected_snapshot"):  # out of reach after the drop
        importlib.import_module(module)
    protected.rivulet_dirs()
    if args.uid is not None:
        os.setgroups([])
        os.setgid(args.gid)
        os.setuid(args.uid)
    if job.get("secret"):
        os.environ["OPENAI_API_KEY"] = job["secret"]
    print(json.dumps(asyncio.run(_run(job))))


if __name__ == "__main__":
    main()
