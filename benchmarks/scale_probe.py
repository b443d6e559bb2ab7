"""The transcript at scale, end to end, side by side in one run (a quick probe; the full
benchmark is benchmarks/scale_bench.py).

* **items**: one response of N assistant messages, sent as fast as the socket takes them.
  `rivulet exec` and the chat (in a 120x40 pty) read the same stream: wall and CPU seconds
  until the last item is printed / on screen, and, for the chat, how long a key typed every
  0.25 s takes to show.
* **resume**: a session of N turns. Time to the composer, to the last answer on screen, and
  to a key typed at once shown; against a fresh start's composer and key.

Run: python benchmarks/scale_probe.py [--items 1000 10000] [--turns 2000 5000]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from live_bench import VENV_BIN, PtyProc, Rivulet, cpu_seconds, memory_mb
from scale_bench import items_body


class ManyItems(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    items = 1000

    def do_GET(self) -> None:
        self._json({"object": "list", "data": []})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self._write(items_body(self.items))  # scale_bench's stream: the same bytes for every peer
        self.close_connection = True

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _json(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def serve(items: int) -> ThreadingHTTPServer:
    handler = type("Handler", (ManyItems,), {"items": items})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def exec_run(peer: Rivulet, tmp: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([str(VENV_BIN / "rivulet"), "exec", "--workspace", str(tmp / "ws"), "go"], env=peer.env(),
                   cwd=tmp / "ws", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def keys_while(p: PtyProc, until: str, timeout: float) -> tuple[float | None, list[float]]:
    """Type a key every 0.25 s until the bytes `until` show; (when they showed, the keys' latencies)."""
    needle = until.encode()
    t0 = time.monotonic()
    with p.cond:
        p.waits[needle] = [t0, len(p.buf), None]
    letters = (chr(c) for c in range(0x4E00, 0x9FFF) if p.unseen([chr(c)]))  # never in the output yet
    latencies: list[float] = []
    shown = None
    while time.monotonic() - t0 < timeout:
        with p.cond:
            seen = p.waits[needle][2]
        if seen is not None:
            shown = seen - t0
            break
        ch = next(letters)
        with p.cond:
            p.waits[ch.encode()] = [time.monotonic(), len(p.buf), None]
        p.write(ch)
        if len(p.waits) % 30 == 0:  # a full composer line: empty it (the backspaces are not timed)
            p.write(b"\x7f" * 30)
        time.sleep(0.25)
    time.sleep(0.3)
    with p.cond:
        for key, w in p.waits.items():
            if key != needle:
                latencies.append(w[2] - w[0] if w[2] is not None else float("inf"))
        p.waits.clear()
    return shown, latencies


def send(p: PtyProc) -> None:
    """Type a prompt and Enter, apart (an Enter right after text is a pasted newline), once
    the chat has started (keys held during its start are replayed as one paste)."""
    p.write("go")
    time.sleep(0.3)
    p.write("\r")
    while p.wait_text(r"Working|esc to interrupt", 5) is None:
        p.write("\x7f" * 10 + "go")
        time.sleep(0.3)
        p.write("\r")


def items_case(n: int, tmp: Path, save: bool) -> None:
    server = serve(n)
    peer = Rivulet(tmp, f"http://127.0.0.1:{server.server_port}/v1")
    if not save:  # without the session file's fsync per item (the "store" work makes those group commits)
        with open(tmp / "rivulet.toml", "a") as f:
            f.write("save_sessions = false\n")
    (tmp / "ws").mkdir(exist_ok=True)
    wall, cpu = exec_run(peer, tmp)
    print(f"{n:6} items{'' if save else ' (no session file)'}  exec: wall {wall:6.2f} s  cpu {cpu:6.2f} s", flush=True)
    p = PtyProc(peer.argv(), peer.env(), str(tmp / "ws"))
    try:
        p.wait_text(peer.ready, 30)
        time.sleep(1.0)
        c0 = cpu_seconds(p.pid)
        send(p)
        shown, lat = keys_while(p, f"Item {n - 1}: a short", 300)
        cpu_chat = cpu_seconds(p.pid) - c0
        lat_ms = sorted(x * 1e3 for x in lat)
        worst = lat_ms[-1] if lat_ms else float("nan")
        med = statistics.median(lat_ms) if lat_ms else float("nan")
        print(f"{n:6} items  chat: wall {shown if shown is not None else float('nan'):6.2f} s  cpu {cpu_chat:6.2f} s  "
              f"{cpu_chat / n * 1e3:5.2f} cpu-ms/item  ratio to exec {(shown or float('nan')) / wall:4.2f}x  "
              f"key median {med:5.1f} ms, worst {worst:6.1f} ms ({len(lat_ms)} keys)  "
              f"rss {memory_mb(p.pid)[1]:.0f} MB", flush=True)
    finally:
        p.stop(peer.quit_keys)
        server.shutdown()


def write_session(directory: Path, turns: int, cwd: str) -> str:
    from rivulet.core.store.session import FORMAT

    answer = "Some **answer** text with `code`, and a list:\n\n- one\n- two\n\n" + "More words here. " * 40
    sid = f"probe-{turns}"
    now = time.time() - turns
    with open(directory / f"{sid}.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "session", "format": FORMAT, "id": sid, "created": now, "cwd": cwd,
                            "model": "bench-model", "base_url": "http://127.0.0.1/v1"}) + "\n")
        seq = 0
        for n in range(turns):
            f.write(json.dumps({"type": "turn", "turn_id": n + 1, "event": "started", "prompt": f"question {n}",
                                "time": now + n}) + "\n")
            question = [{"type": "input_text", "text": f"question {n}"}]
            for item in ({"type": "message", "role": "user", "content": question},
                         {"id": f"msg_{n}", "type": "message", "role": "assistant", "status": "completed",
                          "content": [{"type": "output_text", "text": f"Answer {n}. {answer}", "annotations": []}]}):
                f.write(json.dumps({"type": "item", "seq": seq, "key": f"k{seq}", "segment": f"req-{n}",
                                    "time": now + n, "item": item}) + "\n")
                seq += 1
            f.write(json.dumps({"type": "turn", "turn_id": n + 1, "event": "completed", "usage": None,
                                "time": now + n}) + "\n")
    return sid


def start_case(peer: Rivulet, cwd: Path, extra: list[str], last: str | None) -> tuple[float | None, float | None,
                                                                                       float | None, float]:
    """(composer, last answer, key shown) seconds since launch, and the RSS in MB."""
    p = PtyProc(peer.argv() + extra, peer.env(), str(cwd))
    try:
        composer = p.wait_text(peer.ready, 120)
        p.probe("Z")
        answer = p.wait_text(last, 120) if last else composer
        key = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            lat = p.latencies()
            if lat and lat[0] != float("inf"):
                key = composer + lat[0] if composer is not None else None
                break
            with p.cond:
                p.waits.setdefault(b"Z", [time.monotonic(), 0, None])
            time.sleep(0.02)
        # The key's time since launch: when it was typed (at the composer) plus its latency.
        time.sleep(1.0)
        return composer, answer, key, memory_mb(p.pid)[1]
    finally:
        p.stop(peer.quit_keys)


def resume_case(turns: int, tmp: Path) -> None:
    peer = Rivulet(tmp, "http://127.0.0.1:9/v1")
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    fresh = start_case(peer, ws, [], None)
    sid = write_session(tmp / "sessions", turns, str(ws))
    resumed = start_case(peer, ws, ["resume", sid], rf"Answer {turns - 1}\.")
    f, r = fresh, resumed

    def s(v: float | None) -> str:
        return "n/a" if v is None else f"{v:6.2f}"

    print(f"{turns:6} turns  fresh: composer {s(f[0])} s, key {s(f[2])} s ({f[3]:.0f} MB)  "
          f"resumed: composer {s(r[0])} s, last answer {s(r[1])} s, key {s(r[2])} s ({r[3]:.0f} MB)  "
          f"ratios: key {(r[2] or 0) / (f[2] or 1):4.2f}x, answer {(r[1] or 0) / (f[0] or 1):4.2f}x", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--turns", type=int, nargs="*", default=[2000, 5000])
    ap.add_argument("--no-save", action="store_true", help="items: no session file (its fsyncs are not the screen's)")
    args = ap.parse_args()
    for n in args.items:
        with tempfile.TemporaryDirectory() as tmp:
            items_case(n, Path(tmp), not args.no_save)
    for t in args.turns:
        with tempfile.TemporaryDirectory() as tmp:
            resume_case(t, Path(tmp))


if __name__ == "__main__":
    main()
