"""exec benchmark: `rivulet exec` beside a floor client built from the same libraries, and Codex CLI.

Two workloads, each peer a fresh process per run, the peers alternated within each
repetition (peer A, peer B, ..., then again), medians of N reported:

* **tiny turn**: one request, a one-word answer. Whole-process CPU time (user + sys from
  `wait4`, children included), wall time, and *launch to first request*: from just
  before the spawn until the local server reads the request line.
* **many items**: one response of N output items (default 10,000 messages, each sent as
  OpenAI sends one: added, part added, a delta, text done, part done, item done).

Peers: rivulet (`.venv/bin/rivulet`), rivulet before a change (`--before PATH`, e.g. a
scratch install of main), Codex CLI when its binary is there (`--codex PATH`, a reference
figure, not a target), and the floor: exec_floor.py, built from the
libraries rivulet stands on (asyncio, httpx's AsyncClient with its default transport,
msgspec): it streams the same POST, decodes every event with msgspec, keeps each finished
item and prints the last message, which is what `rivulet exec` prints. The goal (issue 37):
rivulet's tiny turn within 1.3x the floor's CPU time.

Run: .venv/bin/python benchmarks/exec_bench.py [--runs N] [--items N] [--before PATH] [--also NAME=PATH]
     [--codex PATH]
Not a test and not in CI: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RIVULET = ROOT / ".venv" / "bin" / "rivulet"
DEFAULT_CODEX = Path("/work/peer/codex/node_modules/@openai/codex-linux-x64/vendor/"
                     "x86_64-unknown-linux-musl/bin/codex")
SECRET_ENV = ("OPENAI_API_KEY", "RIVULET_API_KEY", "OPENAI_BASE_URL", "RIVULET_BASE_URL")


# ---- the stream ---------------------------------------------------------------------------

def response_body(n_items: int, word: str = "Hello") -> bytes:
    """One response of `n_items` finished messages, as SSE bytes."""
    out: list[bytes] = []
    seq = 0

    def emit(type_: str, **fields: Any) -> None:
        nonlocal seq
        ev = {"type": type_, "sequence_number": seq, **fields}
        seq += 1
        out.append(f"event: {type_}\ndata: {json.dumps(ev, separators=(',', ':'))}\n\n".encode())

    rid = "resp_" + "0" * 24
    emit("response.created", response={"id": rid, "object": "response", "status": "in_progress", "output": []})
    emit("response.in_progress", response={"id": rid, "object": "response", "status": "in_progress", "output": []})
    output = []
    for i in range(n_items):
        mid = f"msg_{i:024d}"
        text = word if n_items == 1 else f"{word} {i}"
        emit("response.output_item.added", output_index=i,
             item={"id": mid, "type": "message", "status": "in_progress", "role": "assistant", "content": []})
        emit("response.content_part.added", item_id=mid, output_index=i, content_index=0,
             part={"type": "output_text", "annotations": [], "text": ""})
        emit("response.output_text.delta", item_id=mid, output_index=i, content_index=0, delta=text, logprobs=[])
        emit("response.output_text.done", item_id=mid, output_index=i, content_index=0, text=text, logprobs=[])
        part = {"type": "output_text", "annotations": [], "text": text}
        emit("response.content_part.done", item_id=mid, output_index=i, content_index=0, part=part)
        item = {"id": mid, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
        emit("response.output_item.done", output_index=i, item=item)
        output.append(item)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": n_items,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 10 + n_items}
    emit("response.completed", response={"id": rid, "object": "response", "status": "completed",
                                          "model": "bench", "output": output, "usage": usage})
    return b"".join(out)


class Handler(BaseHTTPRequestHandler):
    server: BenchServer
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.server.arrivals.append(time.monotonic())  # the request line and headers are read
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = self.server.body
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self) -> None:
        data = b'{"object":"list","data":[],"models":[]}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class BenchServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)  # loopback only, a free port
        self.body = b""
        self.arrivals: list[float] = []
        threading.Thread(target=self.serve_forever, name="bench-server", daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


# ---- the peers ------------------------------------------------------------------------------------

class Peer:
    name = ""

    def __init__(self, tmp: Path, base_url: str) -> None:
        self.tmp, self.base_url = tmp, base_url
        self.ws = tmp / "ws"
        self.ws.mkdir(exist_ok=True)

    def argv(self) -> list[str]:
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k not in SECRET_ENV}


class Rivulet(Peer):
    def __init__(self, name: str, binary: Path, tmp: Path, base_url: str, extra_env: dict[str, str]) -> None:
        super().__init__(tmp, base_url)
        self.name, self.binary, self.extra_env = name, binary, extra_env
        self.home = tmp / f"home-{name}"
        self.home.mkdir(exist_ok=True)
        self.config = tmp / f"{name}.toml"
        self.config.write_text('approval = "never-ask"\ntransport = "sse"\n')

    def argv(self) -> list[str]:
        return [str(self.binary), "exec", "--base-url", self.base_url, "hi"]

    def env(self) -> dict[str, str]:
        env = super().env()
        env.update({"RIVULET_CONFIG": str(self.config), "RIVULET_SESSIONS_DIR": str(self.tmp / f"sessions-{self.name}"),
                    "HOME": str(self.home)})
        env.update(self.extra_env)
        return env


class Floor(Peer):
    name = "floor"

    def __init__(self, python: Path, tmp: Path, base_url: str) -> None:
        super().__init__(tmp, base_url)
        self.python = python

    def argv(self) -> list[str]:
        # Its own small file: this one's imports (http.server, argparse, ...) are no part of a client.
        return [str(self.python), str(Path(__file__).resolve().parent / "exec_floor.py"), self.base_url]


class Codex(Peer):
    name = "codex"

    def __init__(self, binary: Path, tmp: Path, base_url: str) -> None:
        super().__init__(tmp, base_url)
        self.binary, self.home = binary, tmp / "codexhome"
        self.home.mkdir(exist_ok=True)
        (self.home / "config.toml").write_text(f"""model = "gpt-5.5"
model_provider = "local"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
[analytics]
enabled = false
[feedback]
enabled = false
[history]
persistence = "none"
[model_providers.local]
name = "local"
base_url = "{base_url}"
wire_api = "responses"
[features]
plugins = false
remote_plugin = false
apps = false
""")

    def argv(self) -> list[str]:
        return [str(self.binary), "exec", "--skip-git-repo-check", "hi"]

    def env(self) -> dict[str, str]:
        env = super().env()
        env["CODEX_HOME"] = str(self.home)
        return env


def run_once(peer: Peer, server: BenchServer, expect: str) -> dict[str, float] | None:
    """One fresh process: its CPU (wait4, children included), wall time, launch to first request."""
    server.arrivals.clear()
    out = peer.tmp / f"{peer.name}.out"
    err = peer.tmp / f"{peer.name}.err"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        start = time.monotonic()
        proc = subprocess.Popen(peer.argv(), env=peer.env(), cwd=peer.ws, stdin=subprocess.DEVNULL,
                                stdout=fo, stderr=fe)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = out.read_bytes().decode(errors="replace")
    if proc.returncode != 0 or expect not in text or not server.arrivals:
        print(f"  {peer.name}: exit {proc.returncode}, answer {'found' if expect in text else 'missing'}; "
              f"stderr: {err.read_text(errors='replace')[-400:]!r}", file=sys.stderr)
        return None
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "first_request": server.arrivals[0] - start,
            "maxrss_mb": usage.ru_maxrss / 1024}


def measure(peers: list[Peer], server: BenchServer, runs: int, expect: str) -> dict[str, dict[str, float]]:
    samples: dict[str, list[dict[str, float]]] = {p.name: [] for p in peers}
    for _ in range(runs):
        for peer in peers:  # interleaved: a change in the machine's load falls on every peer alike
            r = run_once(peer, server, expect)
            if r is not None:
                samples[peer.name].append(r)
    return {name: {k: statistics.median(s[k] for s in rs) for k in rs[0]} | {"n": len(rs)}
            for name, rs in samples.items() if rs}


def table(title: str, results: dict[str, dict[str, float]], refs: list[str], keys: list[tuple[str, str]]) -> str:
    """Medians, and each one's ratio to every reference peer present (the floor first)."""
    refs = [ref for ref in refs if ref in results]
    lines = [f"### {title}", "", "| peer | runs | " + " | ".join(label for _, label in keys) + " | " +
             " | ".join(f"{label} / {ref}" for ref in refs for _, label in keys) + " |",
             "|---" * (2 + len(keys) * (1 + len(refs))) + "|"]
    for name, r in results.items():
        vals = " | ".join(f"{r[k]:.3f}" for k, _ in keys)
        ratios = " | ".join(f"{r[k] / results[ref][k]:.2f}x" if results[ref][k] else "-"
                            for ref in refs for k, _ in keys)
        lines.append(f"| {name} | {r['n']} | {vals} | {ratios} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11, help="runs of the tiny turn per peer (median)")
    ap.add_argument("--item-runs", type=int, default=3, help="runs of the many-items response per peer")
    ap.add_argument("--items", type=int, default=10_000, help="output items in the large response (0: skip)")
    ap.add_argument("--before", type=Path, help="another rivulet executable to compare (e.g. main's)")
    ap.add_argument("--also", action="append", default=[], metavar="NAME=PATH",
                    help="more rivulet executables, each a peer of its own (e.g. a non-editable install)")
    ap.add_argument("--codex", type=Path, default=DEFAULT_CODEX, help="the Codex CLI binary")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for the rivulet peers (e.g. RIVULET_SAVE_SESSIONS=false)")
    ap.add_argument("--only", default="", help="peers to run, comma-separated (default: all found)")
    ap.add_argument("--floor-python", type=Path, default=Path(sys.executable),
                    help="the interpreter of the floor: the one of the rivulet build it is compared to (an "
                         "editable checkout's venv runs its .pth hook at every start, an installed build's does not)")
    args = ap.parse_args()

    # As `pip install` does for a wheel: with PYTHONDONTWRITEBYTECODE set, an editable
    # checkout would otherwise compile its modules at every start, a cost no user pays.
    for venv_python, root in [(ROOT / ".venv" / "bin" / "python", ROOT)] + \
            ([(args.before.parent / "python", None)] if args.before else []):
        dirs = [str(root / d) for d in ("app", "core", "widgets", "themes")] if root else []
        if dirs:
            subprocess.run([str(venv_python), "-m", "compileall", "-q", *dirs], check=True, stdout=subprocess.DEVNULL)
    server = BenchServer()
    with tempfile.TemporaryDirectory(prefix="exec-bench-") as tmp_name:
        tmp = Path(tmp_name)
        extra_env = dict(pair.split("=", 1) for pair in args.env)
        peers: list[Peer] = [Rivulet("rivulet", RIVULET, tmp, server.base_url, extra_env)]
        if args.before:
            peers.append(Rivulet("before", args.before, tmp, server.base_url, extra_env))
        for name, path in (pair.split("=", 1) for pair in args.also):
            peers.append(Rivulet(name, Path(path), tmp, server.base_url, extra_env))
        if args.codex.is_file() and os.access(args.codex, os.X_OK):
            peers.append(Codex(args.codex, tmp, server.base_url))
        else:
            print(f"Codex CLI not found at {args.codex} (npm install --prefix /work/peer/codex "
                  "@openai/codex@0.169.0): its row is missing", file=sys.stderr)
        peers.append(Floor(args.floor_python, tmp, server.base_url))
        if args.only:
            peers = [p for p in peers if p.name in args.only.split(",")]
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start "
              "(a shared machine: compare the ratios of one run)" +
              (f"; rivulet ran with {' '.join(args.env)}" if args.env else "") + "\n")
        server.body = response_body(1)
        tiny = measure(peers, server, args.runs, "Hello")
        print(table("A tiny exec turn (seconds, medians; the goal: rivulet's CPU <= 1.3x the floor's; "
                    "Codex for reference)", tiny, ["floor", "codex"],
                    [("cpu", "CPU s"), ("wall", "wall s"), ("first_request", "launch to 1st request s")]))
        print()
        if args.items:
            server.body = response_body(args.items)
            many = measure(peers, server, args.item_runs, f"Hello {args.items - 1}")
            print(table(f"{args.items:,} items in one response (seconds, medians; ratios to the floor)", many,
                        ["floor"], [("wall", "wall s"), ("cpu", "CPU s"), ("maxrss_mb", "peak RSS MB")]))
            print()
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
