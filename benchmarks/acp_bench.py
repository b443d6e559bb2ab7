"""ACP benchmark: CPU time per streamed delta of `rivulet acp` beside `rivulet exec` on the
same stream (issue 39: the agent's cost per delta within 1.5x exec's).

The stream is one answer of N deltas from a local server. Each peer is a fresh process per
run; its CPU time (user + sys, from `wait4`) is measured at N = SMALL and N = LARGE, and
the cost of a delta is the difference over the deltas added, so the start (imports, the
session, the handshake) cancels out. Peers: `exec` (prints the answer at the end),
`exec --json` (a JSON line per event, as the agent sends one message per delta) and
`acp` (driven by a raw JSON-RPC client here: initialize, session/new, session/prompt,
every session/update line read, then stdin closed). Medians of the runs, the peers
alternated within each repetition.

Run: .venv/bin/python benchmarks/acp_bench.py [--runs N] [--deltas N]
Not a test and not in CI: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RIVULET = ROOT / ".venv" / "bin" / "rivulet"
SMALL = 10


def stream(n: int) -> bytes:
    """One message answered in `n` deltas, as SSE bytes."""
    out: list[bytes] = []

    def emit(type_: str, **fields: Any) -> None:
        out.append(f"event: {type_}\ndata: {json.dumps({'type': type_, **fields}, separators=(',', ':'))}\n\n"
                   .encode())

    rid, mid = "resp_bench", "msg_bench"
    emit("response.created", response={"id": rid, "status": "in_progress", "output": []})
    emit("response.output_item.added", output_index=0,
         item={"id": mid, "type": "message", "status": "in_progress", "role": "assistant", "content": []})
    emit("response.content_part.added", item_id=mid, output_index=0, content_index=0,
         part={"type": "output_text", "annotations": [], "text": ""})
    for i in range(n):
        emit("response.output_text.delta", item_id=mid, output_index=0, content_index=0, delta=f"w{i} ")
    text = "".join(f"w{i} " for i in range(n))
    part = {"type": "output_text", "annotations": [], "text": text}
    emit("response.output_text.done", item_id=mid, output_index=0, content_index=0, text=text)
    emit("response.content_part.done", item_id=mid, output_index=0, content_index=0, part=part)
    item = {"id": mid, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
    emit("response.output_item.done", output_index=0, item=item)
    emit("response.completed", response={"id": rid, "status": "completed", "output": [item],
                                          "usage": {"input_tokens": 1, "output_tokens": n, "total_tokens": n + 1}})
    return b"".join(out)


class Handler(BaseHTTPRequestHandler):
    server: Server
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = self.server.body
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.body = b""
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    config = tmp / "config.toml"
    config.write_text('approval = "never-ask"\ntransport = "sse"\nsave_sessions = false\n')
    env.update({"RIVULET_CONFIG": str(config), "HOME": str(tmp), "RIVULET_CHECKPOINTS_DIR": str(tmp / "ck")})
    return env


def _cpu(proc: subprocess.Popen[bytes]) -> float:
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{proc.args!r} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def run_exec(base_url: str, tmp: Path, json_lines: bool) -> float:
    argv = [str(RIVULET), "exec", "--base-url", base_url, *(["--json"] if json_lines else []), "hi"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(tmp), cwd=tmp)
    assert proc.stdout is not None
    while proc.stdout.read(1 << 16):
        pass
    return _cpu(proc)


def run_acp(base_url: str, tmp: Path) -> float:
    proc = subprocess.Popen([str(RIVULET), "acp", "--base-url", base_url], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env(tmp), cwd=tmp)
    assert proc.stdin is not None and proc.stdout is not None

    def call(n: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}).encode() + b"\n")
        proc.stdin.flush()
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == n and "method" not in message:
                return message
        raise SystemExit("the agent ended early")

    call(1, "initialize", {"protocolVersion": 1})
    sid = call(2, "session/new", {"cwd": str(tmp), "mcpServers": []})["result"]["sessionId"]
    done = call(3, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
    assert done["result"]["stopReason"] == "end_turn", done
    proc.stdin.close()
    return _cpu(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--deltas", type=int, default=20_000)
    args = parser.parse_args()
    server = Server()
    peers = {"exec": lambda tmp: run_exec(server.base_url, tmp, False),
             "exec --json": lambda tmp: run_exec(server.base_url, tmp, True),
             "acp": lambda tmp: run_acp(server.base_url, tmp)}
    cpu: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        for _ in range(args.runs):
            for n in (SMALL, args.deltas):
                server.body = stream(n)
                for name, run in peers.items():
                    cpu.setdefault((name, n), []).append(run(tmp))
    per_delta = {}
    print(f"{'peer':<12} {'cpu@' + str(SMALL):>10} {'cpu@' + str(args.deltas):>12} {'µs/delta':>9}")
    for name in peers:
        small, large = (statistics.median(cpu[(name, n)]) for n in (SMALL, args.deltas))
        per_delta[name] = (large - small) / (args.deltas - SMALL) * 1e6
        print(f"{name:<12} {small:>9.3f}s {large:>11.3f}s {per_delta[name]:>9.1f}")
    print(f"acp / exec: {per_delta['acp'] / per_delta['exec']:.2f}x; "
          f"acp / exec --json: {per_delta['acp'] / per_delta['exec --json']:.2f}x")


if __name__ == "__main__":
    main()
