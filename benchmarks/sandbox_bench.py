"""Cost of one sandboxed shell command, through the real code path (issue 21).

Runs `true` and `ls` N times each as the model's `shell` calls under the `auto` policy
(sandboxed, unasked), in a workspace shaped like a real one (a `.git`, a virtualenv,
a few hundred files), and prints the median and the 90th percentile wall time per
call, and the CPU time per call (rivulet's and its children's: bwrap, bash, the command;
on a loaded shared machine it moves much less than wall time), sandboxed and with
`sandbox = off` for the floor. Run:

    .venv/bin/python benchmarks/sandbox_bench.py [--n 50] [--files 400]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings


async def _never(_request: object) -> Decision:
    raise SystemExit("the benchmark's command asked: it should run unasked under auto")


def _workspace(root: Path, files: int) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    (root / "env" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for n in range(files):
        sub = root / "src" / f"pkg{n % 20}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"mod{n}.py").write_text("x = 1\n")


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


async def _measure(tools: AgentTools, command: str, n: int) -> list[float]:
    times = []
    for i in range(n):
        call = {"type": "function_call", "id": f"fc{i}", "call_id": f"c{i}", "name": "shell",
                "arguments": json.dumps({"command": command, "workdir": None, "timeout_ms": 20000,
                                         "justification": None, "outside_sandbox": None})}
        start = time.perf_counter()
        out = await tools.run(call)
        times.append(time.perf_counter() - start)
        if "Exit code: 0" not in out["output"]:
            raise SystemExit(f"{command!r} failed: {out['output']}")
    return times


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--files", type=int, default=400)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(dir="/var/tmp"))
    try:
        _workspace(root, args.files)
        print(f"{'command':<8} {'sandbox':<16} {'median ms':>10} {'p90 ms':>8} {'CPU ms/call':>12}")
        for mode in ("off", "workspace-write"):
            tools = AgentTools(ToolSettings(workspace=root, sandbox=mode),  # type: ignore[arg-type]
                               ApprovalPolicy("auto" if mode != "off" else "never-ask", _never))
            await _measure(tools, "true", 3)  # warm-up: the sandbox probe, the filter
            for command in ("true", "ls"):
                cpu = _cpu()
                times = sorted(await _measure(tools, command, args.n))
                cpu = (_cpu() - cpu) / args.n
                p90 = times[int(len(times) * 0.9) - 1]
                print(f"{command:<8} {mode:<16} {statistics.median(times) * 1000:>10.1f} {p90 * 1000:>8.1f} "
                      f"{cpu * 1000:>12.1f}")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    asyncio.run(main())
