"""`rivulet exec` on one response of N output items (10,000 by default), from a local SSE
server: wall time, CPU (the process and its children) and the session file's fsyncs.

Side by side in one run: each `--python` is an interpreter whose rivulet is installed
(editable), e.g. this worktree's .venv against main's, to see a change before → after.

    .venv/bin/python benchmarks/exec_items_bench.py [--items 10000] [--repeat 3]
        [--python .venv/bin/python --python /work/main/.venv/bin/python]

fsyncs are counted in a separate run under `strace -f -c -e trace=fsync,fdatasync` (when
strace is installed), since tracing slows the process down.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from helpers.many_items import many_items_body  # noqa: E402


def serve(payload: bytes) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def run_once(python: str, url: str, trace: bool = False) -> tuple[float, float, int | None, int]:
    """(wall s, CPU s, fsyncs or None, exit status) of one exec run."""
    with tempfile.TemporaryDirectory() as sessions:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
        env.update({"RIVULET_SESSIONS_DIR": sessions, "RIVULET_CONFIG": os.devnull})
        argv = [python, "-m", "rivulet.app", "exec", "many items", "--base-url", url]
        summary = Path(sessions) / "strace.txt"
        if trace:
            argv = ["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(summary), *argv]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        fsyncs = None
        if trace and summary.exists():
            calls = r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?f(?:data)?sync"  # strace -c's rows
            fsyncs = sum(int(m.group(1)) for m in re.finditer(calls, summary.read_text(), re.M))
        if done.returncode != 0:
            print(f"  exit {done.returncode}: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return wall, cpu, fsyncs, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", action="append", help="an interpreter with rivulet installed (repeatable)")
    args = parser.parse_args()
    pythons = args.python or [p for p in (str(ROOT / ".venv/bin/python"), "/work/main/.venv/bin/python")
                              if Path(p).exists()]
    server, url = serve(many_items_body(args.items))
    print(f"exec, one response of {args.items:,} items ({len(many_items_body(args.items)) / 1e6:.1f} MB), "
          f"median of {args.repeat}")
    print(f"{'interpreter':45} {'wall s':>7} {'CPU s':>7} {'fsyncs':>7}")
    try:
        for python in pythons:
            runs = [run_once(python, url) for _ in range(args.repeat)]
            fsyncs = run_once(python, url, trace=True)[2] if shutil.which("strace") else None
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print(f"{python:45} {wall:7.2f} {cpu:7.2f} {fsyncs if fsyncs is not None else '-':>7}")
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
