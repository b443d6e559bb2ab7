"""Scale benchmark: what grows with the work. Real programs in real pseudo-terminals,
side by side in one run, against a local server (live_bench.py's, plus a many-items mode).

Sections (`--only items,typing,resume,soak`, and `line`):

* **items**: one response of 1,000 / 2,000 / 10,000 output items (each a short message
  in three deltas), written as fast as the socket takes it, byte-identical for every peer:
  - the floor: plain Python (httpx) reading the SSE to EOF and decoding every event;
  - `rivulet exec` and the chat (`rivulet` in a pty, prompt typed, the clock stops when
    the last item's text is in the terminal output);
  - Codex CLI, when its binary is there: `codex exec --json` and its TUI, the same way.
  Every clock starts at the same point, the items request reaching the server (the
  server stamps the time and reads the peer's CPU then), and ends at the peer's exit
  (exec, the floor) or the last item on screen (the TUIs): wall seconds and CPU seconds
  of the process tree (CPU ms per item). Start-up is live_bench's and exec_bench's.
  `--repeat R` runs every peer R times, each repetition in a rotated order; medians.
* **typing**: a key every 100 ms while 2,000 items stream in the chat (and Codex's TUI):
  keystroke to screen, median / p90 / max; the peers take turns within each round.
* **resume**: `rivulet resume` of a generated session of 2,000 / 20,000 turns (the current
  session format, ~2 kB of Markdown per answer) against a real fresh start (plain
  `rivulet`, same server and config), every clock from spawn: to the composer, to a key
  typed the moment it shows, and to the last answer's last line drawn.
  `--resume-repeat R` (5) repetitions, each running the fresh start and every size in a
  rotated order; medians, and the ratio to the fresh start per repetition.
* **soak**: 240 turns in one chat (reasoning, an apply_patch call, a 400-delta Markdown
  answer), fast: CPU seconds per turn and RSS after each turn, the first tenth against the
  last tenth; and "Done": from the server writing `response.completed` to "Done" in the
  terminal output, median over the turns. This machine's own speed drifts by up to ~1.7x
  over minutes (a fixed loop timed between turns shows it), so a fresh chat also takes its
  first tenth of turns one by one between the long chat's last ones: the same work in the
  same minutes, the ratio that drift cannot move.
* **line** (not in the default run): one answer of 1 / 4 / 10 MB on ONE line (a base64
  blob), and 10 MB of the same characters in lines of 72 (`--line-mb`, `--line-lines-mb`),
  in deltas of 64 characters written as fast as the socket takes them, in the chat: wall
  seconds from the request to the answer's last word on screen, and CPU seconds from the
  request until the chat is quiet again (the commit included). Issue 36: one line cost
  0.31 / 1.28 / 5.26 / 32 CPU s at 1 / 2 / 4 / 10 MB (quadratic); it should cost what the
  same bytes in lines cost. Before and after: `--rivulet "env PYTHONPATH=OLD_TREE
  .venv/bin/rivulet"`, OLD_TREE holding main's app/core/widgets/themes under rivulet/.

Run: .venv/bin/python benchmarks/scale_bench.py                    # everything, ~25 min
     .venv/bin/python benchmarks/scale_bench.py --only soak --turns 60
     .venv/bin/python benchmarks/scale_bench.py --only items --items 1000,2000 --peers rivulet,floor
     .venv/bin/python benchmarks/scale_bench.py --only resume --resume-repeat 7
     .venv/bin/python benchmarks/scale_bench.py --only line --line-mb 1,4,10
Codex's columns need its binary: npm install --prefix /work/peer/codex @openai/codex@0.169.0;
reading its screen needs pyte (the `bench` extra: scripts/setup --with-peers installs it).
Not a test and not in CI: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import random
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
import live_bench as lb  # the pty, the peers, the paced server and /proc figures

ITEMS_MARK = "scale-items"  # a prompt "scale-items N" gets one response of N items
LINE_MARK = "scale-line"  # "scale-line 4 one": an answer of 4 MB on one line ("lines": in lines)
LINE_END = "END-OF-ANSWER"  # the answer's last word, looked for on screen


def item_text(n: int) -> str:
    return f"Item {n}: a short answer with **bold** text.\n"


def items_body(n: int) -> bytes:
    """One response of `n` message items, three deltas each, as SSE bytes (made once per n)."""
    out = io.BytesIO()
    script = lb.Script(out.write)
    script.start()
    for i in range(n):
        text = item_text(i)
        script.message([f"Item {i}: ", "a short answer ", text[len(f"Item {i}: a short answer "):]], lambda: None)
    script.finish()
    return out.getvalue()


def line_text(mb: float, shape: str) -> str:
    """`mb` MB of a base64 blob: on one line, or in lines of 72 (as `base64 -w 72` writes it)."""
    size = int(mb * 1_000_000)
    blob = base64.b64encode(random.Random(36).randbytes(size * 3 // 4 + 3)).decode()[:size]
    if shape == "lines":
        return "\n".join(blob[i:i + 72] for i in range(0, len(blob), 72)) + f"\n{LINE_END}\n"
    return f"{blob} {LINE_END}"


def line_body(mb: float, shape: str, delta: int) -> bytes:
    """One response: the message of `line_text`, in deltas of `delta` characters."""
    out = io.BytesIO()
    script = lb.Script(out.write)
    script.start()
    text = line_text(mb, shape)
    script.message([text[i:i + delta] for i in range(0, len(text), delta)], lambda: None)
    script.finish()
    return out.getvalue()


class ScaleHandler(lb.Handler):
    """live_bench's handler, plus: a request whose last user message is `scale-items N`
    gets N items at once, and one that is `scale-line MB SHAPE` one long answer (a title
    request that quotes it gets live_bench's short answer)."""

    bodies: ClassVar[dict[Any, bytes]] = {}  # made once each: every peer reads the same bytes
    line_delta = 64  # characters per delta of a long answer (--line-delta)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            request = {}
        inputs = request.get("input") if isinstance(request, dict) else None
        last = inputs[-1] if isinstance(inputs, list) and inputs else inputs
        wanted = re.search(ITEMS_MARK + r" (\d+)", json.dumps(last))
        line = re.search(LINE_MARK + r" ([\d.]+) (one|lines)", json.dumps(last))
        if (wanted is None and line is None) or "Generate a concise" in json.dumps(request):
            self.rfile = io.BytesIO(raw)  # live_bench's handler reads the body itself
            return super().do_POST()
        self.server.stamp_items()  # every peer's clock starts here, as the request arrives
        if line is not None:
            key: Any = (float(line.group(1)), line.group(2), self.line_delta)
            body = self.bodies.get(key) or self.bodies.setdefault(key, line_body(*key))
        else:
            n = int(wanted.group(1))
            body = self.bodies.get(n) or self.bodies.setdefault(n, items_body(n))
        self.server.plan.requests.append("items")
        self.server.items_asked.set()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for i in range(0, len(body), 65536):
                self.wfile.write(body[i:i + 65536])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


class ScaleServer(lb.BenchServer):
    def __init__(self) -> None:
        lb.ThreadingHTTPServer.__init__(self, ("127.0.0.1", 0), ScaleHandler)
        self.plan = lb.Plan()
        self.items_asked = threading.Event()
        self.watched, self.marks = {}, {}  # (live_bench's request markers: unused here)
        self.timed_pid: int | None = None  # the peer whose items request is awaited
        self.asked: tuple[float, float] | None = None  # (monotonic time, its CPU s) when it came
        threading.Thread(target=self.serve_forever, name="scale-server", daemon=True).start()

    def expect_items(self, pid: int) -> None:
        self.timed_pid, self.asked = pid, None
        self.items_asked.clear()

    def stamp_items(self) -> None:
        """The request is here: the clock's start for every peer, chat or exec or floor
        (their start-ups differ and are timed by live_bench and exec_bench)."""
        if self.asked is None:
            pid = self.timed_pid
            self.asked = (time.monotonic(), lb.cpu_seconds(pid) if pid is not None else 0.0)


# ---- helpers ----------------------------------------------------------------------------

# The pty helpers live in live_bench (its launches read Codex's screen too).
ScreenPty, expect, unwatch, wait_seen = lb.ScreenPty, lb.expect, lb.unwatch, lb.wait_seen


def last_item_seen(proc: lb.PtyProc) -> int | None:
    """The highest item number in the last 64 kB of output (how far a run got)."""
    if isinstance(proc, ScreenPty):
        found = re.findall(r"Item (\d+):", "\n".join(proc.screen.display))
        return max(map(int, found)) if found else None
    with proc.cond:
        tail = bytes(proc.buf[-65536:])
    found = re.findall(rb"Item (\d+):", lb.ANSI.sub(b"", tail))
    return max(map(int, found)) if found else None


def run_timed(argv: list[str], env: dict[str, str], cwd: Path, timeout: float,
              server: ScaleServer) -> dict[str, Any]:
    """A headless peer (exec, the floor) from its items request reaching the server to its
    exit, as the chat is timed from the same request to its last item on screen: wall
    seconds, and CPU seconds of the child and its waited-for children over that span.
    `spawn` is spawn to exit, `startup` spawn to the request."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    server.expect_items(p.pid)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    end = time.monotonic()
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace").strip().splitlines() if p.stderr else []
    cpu = usage.ru_utime + usage.ru_stime
    out = {"spawn": end - t0, "rc": p.returncode, "err": err[-1][:160] if err and p.returncode else ""}
    if server.asked is None:
        out["err"] = out["err"] or "no request reached the server"
        return out
    asked_at, cpu_then = server.asked
    return {**out, "wall": end - asked_at, "cpu": cpu - cpu_then, "startup": asked_at - t0}


FLOOR = r"""
import json, sys, httpx
n = 0
body = {"model": "bench", "stream": True, "input": [{"role": "user", "content": sys.argv[2]}]}
with httpx.stream("POST", sys.argv[1] + "/responses", json=body, timeout=None) as r:
    for line in r.iter_lines():
        if line.startswith("data: "):
            if json.loads(line[6:])["type"] == "response.output_item.done":
                n += 1
print(n)
"""


def machine_pace() -> float:
    """CPU seconds of a fixed pure-Python workload (~20 ms) in this process: run between
    soak turns, it shows whether the machine itself got slower (a shared VM's neighbours,
    its clock) over the same stretch in which the chat's CPU per turn is compared."""
    c0 = time.thread_time()  # this thread only: the harness's reader threads run beside it
    table: dict[str, int] = {}
    for n in range(20_000):
        key = f"k{n % 997}"
        table[key] = table.get(key, 0) + len(str(n * 7))
    sorted(table.items(), key=lambda kv: kv[1])
    return time.thread_time() - c0


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median wall and CPU seconds of the runs that finished (else the first error)."""
    done = [r for r in runs if r.get("wall") is not None]
    if not done:
        return {"err": next((r["err"] for r in runs if r.get("err")), "no run finished")}
    loads = [r["load"] for r in runs if "load" in r]
    return {"wall": median([r["wall"] for r in done]), "cpu": median([r["cpu"] for r in done]),
            "runs": len(done), "of": len(runs), "load": (min(loads), max(loads)) if loads else None}


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


# ---- the sections ------------------------------------------------------------------------

class Bench:
    def __init__(self, args: argparse.Namespace, tmp: Path, server: ScaleServer, log) -> None:
        self.args, self.tmp, self.server, self.log = args, tmp, server, log
        self.rows: list[tuple[str, str, str, str]] = []  # section, measure, value(s), note
        self.results: dict[str, Any] = {}
        self.peers = set(args.peers.split(","))
        self.codex_bin = args.codex if args.codex.is_file() and os.access(args.codex, os.X_OK) else None
        self.probes = list(lb.PROBES)
        # --rivulet: another build side by side (main's venv), or this one under py-spy
        self.rivulet_cmd = shlex.split(args.rivulet) if args.rivulet else [str(lb.VENV_BIN / "rivulet")]

    def rivulet(self, name: str, extra: list[str] | None = None) -> lb.Rivulet:
        sub = self.tmp / name
        (sub / "ws").mkdir(parents=True, exist_ok=True)
        (sub / "home").mkdir(exist_ok=True)
        return lb.Rivulet(sub, self.server.base_url, extra, prefix=self.rivulet_cmd)

    def codex(self, name: str) -> lb.Codex | None:
        if self.codex_bin is None or "codex" not in self.peers:
            return None
        sub = self.tmp / name
        (sub / "ws").mkdir(parents=True, exist_ok=True)
        return lb.Codex(self.codex_bin, sub, self.server.base_url)

    def add(self, section: str, measure: str, values: str, note: str = "") -> None:
        self.rows.append((section, measure, values, note))
        self.log(f"  {section} | {measure} | {values} {note}")

    # -- many items in one response --

    def items(self) -> None:
        for n in [int(x) for x in self.args.items.split(",")]:
            self.log(f"items: {n}")
            timeout = max(60.0, n * self.args.item_timeout_ms / 1000)
            peers = self.item_peers(n, timeout)
            runs: dict[str, list[dict[str, Any]]] = {key: [] for key, _ in peers}
            for rep in range(self.args.repeat):
                # Each repetition runs every peer once, each in turn first: the machine's
                # drift over minutes falls on all of them alike.
                k = rep % len(peers)
                for key, run in peers[k:] + peers[:k]:
                    runs[key].append({**run(), "load": os.getloadavg()[0]})
            self.results[f"items_{n}"] = runs
            self.report_items(n, {key: median_run(rs) for key, rs in runs.items()})

    def item_peers(self, n: int, timeout: float) -> list[tuple[str, Any]]:
        """(name, a run of it) for each peer asked for: every clock starts at the request."""
        mark = f"{ITEMS_MARK} {n}"
        peers: list[tuple[str, Any]] = []
        if "floor" in self.peers:
            peers.append(("floor", lambda: run_timed([sys.executable, "-c", FLOOR, self.server.base_url, mark],
                                                     dict(lb.BASE_ENV), self.tmp, timeout, self.server)))
        if "rivulet" in self.peers:
            ex = self.rivulet(f"exec-{n}")
            peers.append(("exec", lambda: run_timed([*self.rivulet_cmd, "--workspace", str(ex.tmp / "ws"), "exec",
                                                     mark], ex.env(), ex.tmp / "ws", timeout, self.server)))
            peers.append(("chat", lambda: self.chat_items(self.rivulet(f"chat-{n}"), n, timeout)))
        cx = self.codex(f"codex-{n}")
        if cx is not None:
            ws = self.tmp / f"codex-{n}" / "ws"
            peers.append(("codex_exec", lambda: run_timed([str(cx.binary), "exec", "--json", "--skip-git-repo-check",
                                                           mark], cx.env(), ws, timeout, self.server)))
            peers.append(("codex_tui", lambda: self.chat_items(self.codex(f"codex-tui-{n}"), n, timeout)))
        return peers

    def chat_items(self, peer: lb.Peer, n: int, timeout: float, typing: bool = False) -> dict[str, Any]:
        """A TUI asked for n items: request to the last item on screen, CPU, keys if typing."""
        ws = Path(peer.tmp if isinstance(peer, lb.Rivulet) else peer.home.parent) / "ws"
        p = (ScreenPty if isinstance(peer, lb.Codex) else lb.PtyProc)(peer.argv(), peer.env(), str(ws))
        out: dict[str, Any] = {}
        try:
            if p.wait_text(peer.ready, 30) is None:
                return {"err": "no composer"}
            self.quiet(p)
            self.server.expect_items(p.pid)
            p.write(f"{ITEMS_MARK} {n}")
            time.sleep(0.3)
            last = expect(p, f"Item {n - 1}:")
            p.write(b"\r")
            if not self.server.items_asked.wait(20) or self.server.asked is None:
                return {"err": "no request"}
            t0, c0 = self.server.asked  # stamped by the server as the request came, as exec's
            typed = 0
            if typing:
                while last[2] is None and time.monotonic() - t0 < timeout:
                    p.probe(self.next_probe(p))
                    typed += 1
                    wait_seen(p, last, 0.1)
            seen = wait_seen(p, last, timeout - (time.monotonic() - t0))
            c1 = lb.cpu_seconds(p.pid)
            if seen is None:
                out["err"] = f"not done at {timeout:.0f} s (item {last_item_seen(p)} on screen)"
            else:
                out["wall"] = seen - t0
            out["cpu"] = c1 - c0
            if typing:
                time.sleep(0.5)
                unwatch(p, f"Item {n - 1}:")  # the flood's end is not a key (it was counted as one)
                out["keys"] = p.latencies()
            out["rss"] = lb.memory_mb(p.pid)[1]
        finally:
            p.stop(peer.quit_keys)
        return out

    def next_probe(self, p: lb.PtyProc) -> str:
        while self.probes:
            c = self.probes.pop(0)
            if p.unseen([c]):
                return c
        self.probes = list(lb.PROBES)
        return self.probes.pop(0)

    def quiet(self, p: lb.PtyProc, limit: float = 20.0) -> None:
        """Until two 0.5 s windows in a row use under 10 % of a core (start-up work done)."""
        deadline, calm = time.monotonic() + limit, 0
        while time.monotonic() < deadline and calm < 2:
            c0 = lb.cpu_seconds(p.pid)
            time.sleep(0.5)
            calm = calm + 1 if lb.cpu_seconds(p.pid) - c0 < 0.05 else 0

    def report_items(self, n: int, r: dict[str, Any]) -> None:
        def cell(x: dict[str, Any] | None) -> str:
            if not x:
                return "n/a"
            if x.get("err") and "wall" not in x:
                return x["err"]
            runs = f", median of {x['runs']}" + (f" ({x['of'] - x['runs']} failed)" if x["of"] > x["runs"] else "")
            load = f", load {x['load'][0]:.1f}-{x['load'][1]:.1f}" if x.get("load") else ""
            return (f"{x['wall']:.2f} s wall, {x['cpu']:.2f} CPU s ({1000 * x['cpu'] / n:.2f} ms/item)"
                    f"{runs if x['of'] > 1 else ''}{load}")

        floor = (r.get("floor") or {}).get("wall")
        for key, label in (("floor", "floor (httpx, to EOF)"), ("exec", "rivulet exec"), ("chat", "rivulet chat"),
                           ("codex_exec", "codex exec --json"), ("codex_tui", "codex TUI")):
            if key in r:
                wall = r[key].get("wall")
                note = f"{wall / floor:.2f}x the floor" if wall and floor and key != "floor" else ""
                if key == "chat" and wall and (r.get("exec") or {}).get("wall"):
                    note += f", {wall / r['exec']['wall']:.2f}x exec"
                if key == "chat" and wall and (r.get("codex_tui") or {}).get("wall"):
                    note += f", {wall / r['codex_tui']['wall']:.2f}x Codex's TUI"
                self.add(f"{n:,} items, from the request", label, cell(r[key]), note.strip(", "))

    # -- one long line --

    def line(self) -> None:
        """One answer of each size on one line, then the largest size in lines, in the chat."""
        if "rivulet" not in self.peers:
            return
        ScaleHandler.line_delta = self.args.line_delta
        cases = [(float(mb), "one") for mb in self.args.line_mb.split(",")]
        cases.append((float(self.args.line_lines_mb), "lines"))
        results: list[dict[str, Any]] = []
        for mb, shape in cases:
            self.log(f"line: {mb:g} MB, {'on one line' if shape == 'one' else 'in lines'}")
            key = (mb, shape, self.args.line_delta)
            if key not in ScaleHandler.bodies:  # (made before the clock starts)
                ScaleHandler.bodies[key] = line_body(*key)
            results.append(self.chat_line(self.rivulet(f"line-{mb:g}-{shape}"), mb, shape))
            self.results[f"line_{mb:g}_{shape}"] = results[-1]
        lines = results[-1]
        for (mb, shape), r in zip(cases, results, strict=True):
            what = f"{mb:g} MB {'on one line' if shape == 'one' else 'in lines of 72'}"
            if "cpu" not in r:
                self.add(what, "rivulet chat", r.get("err", "n/a"))
                continue
            note = f"load {r['load']:.1f}"
            if shape == "one" and lines.get("cpu") and mb == float(self.args.line_lines_mb):
                note += f"; {r['cpu'] / lines['cpu']:.2f}x the CPU in lines"
            wall = f"{r['wall']:.2f} s wall" if r.get("wall") is not None else r.get("err", "not seen")
            self.add(what, "rivulet chat", f"{wall}, {r['cpu']:.2f} CPU s ({r['cpu'] / mb:.2f} s/MB)", note)

    def chat_line(self, peer: lb.Rivulet, mb: float, shape: str) -> dict[str, Any]:
        """The chat asked for one long answer: the request to its last word on screen (wall),
        and to the chat quiet again after it (CPU: the commit is the answer's work too)."""
        p = lb.PtyProc(peer.argv(), peer.env(), str(peer.tmp / "ws"))
        try:
            if p.wait_text(peer.ready, 30) is None:
                return {"err": "no composer"}
            self.quiet(p)
            self.server.expect_items(p.pid)
            p.write(f"{LINE_MARK} {mb:g} {shape}")
            time.sleep(0.3)
            end = expect(p, LINE_END)
            p.write(b"\r")
            if not self.server.items_asked.wait(20) or self.server.asked is None:
                return {"err": "no request"}
            t0, c0 = self.server.asked
            seen = wait_seen(p, end, self.args.line_timeout)
            if seen is None:
                return {"err": f"its end not on screen at {self.args.line_timeout:.0f} s",
                        "cpu": lb.cpu_seconds(p.pid) - c0, "load": os.getloadavg()[0]}
            self.quiet(p, limit=self.args.line_timeout)
            return {"wall": seen - t0, "cpu": lb.cpu_seconds(p.pid) - c0, "rss": lb.memory_mb(p.pid)[1],
                    "load": os.getloadavg()[0]}
        finally:
            p.stop(peer.quit_keys)

    # -- a key while 2,000 items stream --

    def typing(self) -> None:
        n = self.args.typing_items
        self.log(f"typing while {n} items stream")
        timeout = max(60.0, n * self.args.item_timeout_ms / 1000)
        peers = [(name, peer) for name, peer in (("rivulet", self.rivulet("typing") if "rivulet" in self.peers
                                                   else None), ("codex", self.codex("codex-typing")))
                 if peer is not None]
        # A flood of 2,000 items lasts about a second: a few keys each. The rounds (each in a
        # fresh process) pool theirs, so the median rests on more than five; the peers take
        # turns within each round, each in turn first.
        rounds: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in peers}
        for rnd in range(self.args.typing_rounds):
            for name, peer in (peers if rnd % 2 == 0 else peers[::-1]):
                rounds[name].append(self.chat_items(peer, n, timeout, typing=True))
        for name, _ in peers:
            runs = rounds[name]
            r = {"runs": runs, "keys": [k for run in runs for k in run.get("keys") or []],
                 "err": "; ".join(run["err"] for run in runs if run.get("err"))}
            self.results[f"typing_{name}"] = r
            keys = r["keys"]
            if keys:
                self.add(f"key while {n:,} items stream", name,
                         f"median {fmt_ms(lb.pct(keys, 0.5))}, p90 {fmt_ms(lb.pct(keys, 0.9))}, "
                         f"max {fmt_ms(max(keys))} ({len(keys)} keys, {len(runs)} floods)", r["err"])
            else:
                self.add(f"key while {n:,} items stream", name, "n/a", r.get("err", ""))

    # -- resume --

    def resume(self) -> None:
        """`rivulet resume` of each size against a real fresh start (plain `rivulet`, same
        server and config), every clock from spawn; each repetition runs all of them, each
        in turn first, so the machine's drift falls on all alike."""
        if "rivulet" not in self.peers:
            return
        sizes = [int(x) for x in self.args.resume.split(",")]
        sids: dict[int, str] = {}
        for turns in sizes:
            peer = self.rivulet(f"resume-{turns}")
            sids[turns] = write_session(peer.tmp / "sessions", turns, str(peer.tmp / "ws"))
        kinds = [0, *sizes]  # 0: the fresh start
        runs: dict[int, list[dict[str, Any]]] = {turns: [] for turns in kinds}
        for rep in range(self.args.resume_repeat):
            k = rep % len(kinds)
            for turns in kinds[k:] + kinds[:k]:
                self.log(f"resume: {turns} turns" if turns else "resume: the fresh start")
                runs[turns].append(self.resume_run(turns, sids.get(turns)))
        self.results["resume"] = runs
        self.report_resume(runs, sizes)

    def resume_run(self, turns: int, sid: str | None) -> dict[str, Any]:
        """Spawn to the composer (the footer's `Send`), to a key typed the moment it showed,
        and (resumed) to the last answer's last line; RSS a second after."""
        peer = self.rivulet(f"resume-{turns}" if turns else "fresh-start")
        peer.extra = ["resume", sid] if sid else []
        p = lb.PtyProc(peer.argv(), peer.env(), str(peer.tmp / "ws"))
        r: dict[str, Any] = {"load": os.getloadavg()[0]}
        try:
            last = expect(p, f"End of answer {turns - 1}.") if turns else None
            composer = expect(p, peer.ready)  # stamped by the drain thread: no polling beside the peer
            if wait_seen(p, composer, 90) is not None:
                r["composer"] = composer[2] - p.t0
                probe = self.next_probe(p)
                key = expect(p, probe)
                p.write(probe)
                seen = wait_seen(p, key, 120)
                r["key"] = None if seen is None else seen - p.t0
            if last is not None:
                seen = wait_seen(p, last, 120)
                r["last"] = None if seen is None else seen - p.t0
            time.sleep(1.0)
            r["hwm"], r["rss"] = lb.memory_mb(p.pid)
        finally:
            p.stop(peer.quit_keys)
        return r

    def report_resume(self, runs: dict[int, list[dict[str, Any]]], sizes: list[int]) -> None:
        def med(rs: list[dict[str, Any]], key: str) -> float | None:
            return median([r[key] for r in rs if r.get(key) is not None])

        fresh = runs[0]
        loads = [r["load"] for rs in runs.values() for r in rs]
        reps = len(fresh)
        self.add("resume: fresh start (plain rivulet)", f"composer / key shown, s (median of {reps})",
                 f"{fmt_s(med(fresh, 'composer'))} / {fmt_s(med(fresh, 'key'))}",
                 f"every clock from spawn; load average {min(loads):.1f}-{max(loads):.1f}")
        targets = {2000: 1.3, 20000: 1.6}
        for turns in sizes:
            rs = runs[turns]
            ratios = []
            for what in ("key", "composer"):
                paired = [a[what] / b[what] for a, b in zip(rs, fresh, strict=True) if a.get(what) and b.get(what)]
                mine, theirs = med(rs, what), med(fresh, what)
                if mine and theirs and paired:
                    ratios.append(f"{what} {mine / theirs:.2f}x a fresh start (per repetition: median "
                                  f"{median(paired):.2f}x, {min(paired):.2f}-{max(paired):.2f}x)")
            target = f"; target key <= {targets[turns]}x" if turns in targets else ""
            self.add(f"resume {turns:,} turns", "composer / key shown / last answer drawn, s; RSS MB",
                     f"{fmt_s(med(rs, 'composer'))} / {fmt_s(med(rs, 'key'))} / {fmt_s(med(rs, 'last'))}; "
                     f"{med(rs, 'rss') or 0:.0f}", "; ".join(ratios) + target)

    # -- soak --

    def soak(self) -> None:
        if "rivulet" not in self.peers:
            return
        turns = self.args.turns
        k = max(1, turns // 10)
        self.log(f"soak: {turns} turns, and a fresh chat's first {k} beside the last {k}")
        deltas = lb.markdown_deltas(self.args.soak_deltas)
        peer, fresh_peer = self.rivulet("soak"), self.rivulet("soak-fresh")
        p = self.soak_chat(peer)
        if p is None:
            self.add("soak", "error", "no composer")
            return
        fresh: lb.PtyProc | None = None
        rows: list[dict[str, float]] = []
        fresh_rows: list[dict[str, float]] = []
        try:
            spy = SoakSpy(self.args.soak_profile, p.pid, turns, self.args.soak_profile_native)
            for n in range(1, turns + 1):
                if n == turns - k + 1:
                    # The machine's own speed drifts over minutes (a shared VM): a fresh chat
                    # taking its first turns between the long chat's last ones is the first
                    # tenth measured in the same minutes.
                    fresh = self.soak_chat(fresh_peer)
                    if fresh is None:
                        self.log("  soak: the fresh chat drew no composer")
                spy.before(n)
                row = self.soak_turn(p, n, deltas)
                if row is None:
                    break
                row["pace"] = min(machine_pace() for _ in range(3))  # the machine, as the long chat's turn ends
                rows.append(row)
                spy.after(n)
                if fresh is not None:
                    row = self.soak_turn(fresh, len(fresh_rows) + 1, deltas)
                    if row is not None:
                        fresh_rows.append(row)
                if n % 20 == 0:
                    self.log(f"  turn {n}: {rows[-1]['cpu']:.2f} CPU s, RSS {rows[-1]['rss']:.0f} MB, "
                             f"Done +{fmt_ms(rows[-1]['done'])}")
        finally:
            p.stop(peer.quit_keys)
            if fresh is not None:
                fresh.stop(fresh_peer.quit_keys)
        self.results["soak"] = rows
        self.results["soak_fresh"] = fresh_rows
        if len(rows) < 20:
            self.add("soak", "error", f"only {len(rows)} turns")
            return
        self.report_soak(rows, fresh_rows)

    def soak_turn(self, p: lb.PtyProc, n: int, deltas: list[str]) -> dict[str, float] | None:
        """One soak turn: the prompt typed, reasoning, an apply_patch call, a Markdown answer."""
        marks: dict[str, Any] = {}

        def ended(marks: dict[str, Any] = marks) -> None:  # server thread, before response.completed
            marks["done"] = expect(p, "Done in")

        self.server.plan.arm(self.args.soak_rate, deltas, None, ended)
        c0, t0 = lb.cpu_seconds(p.pid), time.monotonic()
        p.write(f"soak turn {n}")
        p.write(b"\r")
        if not self.server.plan.md_end.wait(60):
            self.log(f"  soak turn {n}: the answer never finished (requests: {self.server.plan.requests[-3:]})")
            return None
        w = marks["done"]
        seen = wait_seen(p, w, 30)
        time.sleep(0.25)  # what the end of a turn does after "Done" is the turn's too
        return {"cpu": lb.cpu_seconds(p.pid) - c0, "wall": time.monotonic() - t0, "rss": lb.memory_mb(p.pid)[1],
                "done": None if seen is None else seen - w[0]}

    def soak_chat(self, peer: lb.Rivulet) -> lb.PtyProc | None:
        """A chat started and done with its start-up work, or None (stopped) if it drew no composer."""
        p = lb.PtyProc(peer.argv(), peer.env(), str(peer.tmp / "ws"))
        if p.wait_text(peer.ready, 30) is None:
            p.stop(peer.quit_keys)
            return None
        self.quiet(p)
        return p

    def report_soak(self, rows: list[dict[str, float]], fresh_rows: list[dict[str, float]]) -> None:
        name = f"soak {len(rows)} turns"
        k = max(1, len(rows) // 10)
        first, last = rows[:k], rows[-k:]
        cf, cl = median([r["cpu"] for r in first]), median([r["cpu"] for r in last])
        self.add(name, "CPU s per turn, first / last tenth (median)", f"{cf:.3f} / {cl:.3f}",
                 f"{cl / cf:.2f}x (target <= 1.2x)")
        if fresh_rows:
            cfresh = median([r["cpu"] for r in fresh_rows])
            self.add(name, "CPU s per turn, last tenth / a fresh chat's first turns taken between them (median)",
                     f"{cl:.3f} / {cfresh:.3f}", f"{cl / cfresh:.2f}x over {len(fresh_rows)} turns each, the same "
                     f"minutes; fresh first turns / the long chat's: {cfresh / cf:.2f}x (the machine's drift)")
        pf, pl = median([r["pace"] for r in first]), median([r["pace"] for r in last])
        self.add(name, "the machine: a fixed loop's CPU ms, first / last tenth (median)",
                 f"{1000 * pf:.1f} / {1000 * pl:.1f}", f"{pl / pf:.2f}x")
        at20 = rows[19]["rss"]
        self.add(name, "RSS MB at turn 1 / 20 / last", f"{rows[0]['rss']:.0f} / {at20:.0f} / {rows[-1]['rss']:.0f}",
                 f"+{rows[-1]['rss'] - at20:.1f} MB after turn 20 (target <= 15)")
        done = [r["done"] for r in rows if r["done"] is not None]
        if done:
            self.add(name, "response.completed to \"Done\" on screen",
                     f"median {fmt_ms(median(done))}, p90 {fmt_ms(lb.pct(done, 0.9))}, max {fmt_ms(max(done))}",
                     f"{len(done)} turns (target median <= 50 ms)")


class SoakSpy:
    """`--soak-profile PREFIX`: py-spy (from PyPI, in the venv) over the soak's first tenth
    and over its last tenth, as PREFIX-first.txt and PREFIX-last.txt (collapsed stacks), so
    the two can be diffed by function."""

    def __init__(self, prefix: str | None, pid: int, turns: int, native: bool = False) -> None:
        self.prefix, self.pid, self.native = prefix, pid, native
        k = max(1, turns // 10)
        self.spans = {1: ("first", k), turns - k + 1: ("last", turns)}
        self.proc: subprocess.Popen[bytes] | None = None
        self.until = 0

    def before(self, n: int) -> None:
        if self.prefix and n in self.spans:
            name, self.until = self.spans[n]
            self.proc = subprocess.Popen([str(lb.VENV_BIN / "py-spy"), "record", "--pid", str(self.pid),
                                          "--rate", "250", "--format", "raw", "--subprocesses",
                                          "--output", f"{self.prefix}-{name}.txt",
                                          *(["--native"] if self.native else [])],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)  # attached before the turn starts

    def after(self, n: int) -> None:
        if self.proc is not None and n == self.until:
            self.proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
            self.proc.wait(60)
            self.proc = None


def write_session(path: Path, turns: int, cwd: str) -> str:
    """A session file of `turns` question/answer pairs in the current format (as
    core/store/session.py writes it); each answer ends with "End of answer N."."""
    from rivulet.core.store.session import FORMAT

    path.mkdir(parents=True, exist_ok=True)
    body = "".join(lb.MARKDOWN_BLOCKS)
    now = time.time() - turns
    sid = f"scale-{turns}-turns"
    with open(path / f"{sid}.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "session", "format": FORMAT, "id": sid, "created": now, "cwd": cwd,
                            "model": "bench-model", "base_url": "http://127.0.0.1/v1"}) + "\n")
        seq = 0
        for n in range(turns):
            f.write(json.dumps({"type": "turn", "turn_id": n + 1, "event": "started", "prompt": f"question {n}",
                                "time": now + n}) + "\n")
            answer = f"{body}End of answer {n}.\n"
            for item in ({"type": "message", "role": "user", "content": [{"type": "input_text",
                                                                          "text": f"question {n}"}]},
                         {"id": f"msg_{n}", "type": "message", "role": "assistant", "status": "completed",
                          "content": [{"type": "output_text", "text": answer, "annotations": []}]}):
                key = f"user-{n + 1}" if item["role"] == "user" else f"msg_{n}"
                f.write(json.dumps({"type": "item", "seq": seq, "key": key, "segment": None if item["role"] == "user"
                                    else f"req-{n + 1}", "time": now + n, "item": item}) + "\n")
                seq += 1
            f.write(json.dumps({"type": "turn", "turn_id": n + 1, "event": "completed", "usage": None,
                                "time": now + n}) + "\n")
    return sid


def fmt_s(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}"


def fmt_ms(v: float | None) -> str:
    return "n/a" if v is None else ("missed" if v == float("inf") else f"{1000 * v:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="items,typing,resume,soak", help="sections, comma-separated")
    ap.add_argument("--peers", default="rivulet,floor,codex", help="peers, comma-separated")
    ap.add_argument("--codex", type=Path, default=lb.DEFAULT_CODEX, help="the Codex CLI binary")
    ap.add_argument("--rivulet", default="", help="the rivulet command (default: this checkout's "
                    ".venv/bin/rivulet), e.g. /work/main/.venv/bin/rivulet")
    ap.add_argument("--items", default="1000,2000,10000", help="items per response, comma-separated")
    ap.add_argument("--item-timeout-ms", type=float, default=15.0, help="allowed wall ms per item (min 60 s)")
    ap.add_argument("--typing-items", type=int, default=2000)
    ap.add_argument("--typing-rounds", type=int, default=4, help="floods typed into, keys pooled")
    ap.add_argument("--repeat", type=int, default=1, help="items: repetitions, the peers alternated in each")
    ap.add_argument("--resume", default="2000,20000", help="turns of the resumed sessions (the baseline is a "
                    "fresh start)")
    ap.add_argument("--resume-repeat", type=int, default=5, help="resume: repetitions, fresh start and each "
                    "size alternated in each")
    ap.add_argument("--turns", type=int, default=240, help="soak turns")
    ap.add_argument("--soak-rate", type=float, default=2000.0, help="soak: deltas per second")
    ap.add_argument("--soak-profile", default=None, metavar="PREFIX",
                    help="soak: py-spy over the first and the last tenth, to PREFIX-first.txt / -last.txt")
    ap.add_argument("--soak-profile-native", action="store_true", help="soak: py-spy --native (C frames: gc)")
    ap.add_argument("--soak-deltas", type=int, default=400, help="soak: Markdown deltas per answer")
    ap.add_argument("--line-mb", default="1,4,10", help="line: MB of the answers on one line, comma-separated")
    ap.add_argument("--line-lines-mb", type=float, default=10.0, help="line: MB of the answer in lines")
    ap.add_argument("--line-delta", type=int, default=64, help="line: characters per delta")
    ap.add_argument("--line-timeout", type=float, default=600.0, help="line: seconds allowed per answer")
    args = ap.parse_args()
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    tmp = Path(tempfile.mkdtemp(prefix="scale_bench."))
    subprocess.run([str(lb.VENV_BIN / "python"), "-m", "compileall", "-q", *(str(lb.ROOT / d) for d in
                    ("app", "core", "widgets", "themes"))], check=True, stdout=subprocess.DEVNULL)
    server = ScaleServer()
    load = os.getloadavg()
    bench = Bench(args, tmp, server, log)
    try:
        for section in args.only.split(","):
            getattr(bench, section)()
    finally:
        server.shutdown()
    print("| section | measure | result | note |\n|---|---|---|---|")
    for row in bench.rows:
        print("| " + " | ".join(row) + " |")
    codex = "Codex CLI: " + (str(bench.codex_bin) if bench.codex_bin else f"not found at {args.codex}")
    print(f"\n{os.cpu_count()} cores, load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at the end; "
          f"{codex}")
    (tmp / "results.json").write_text(json.dumps(bench.results, indent=1, default=str))
    log(f"raw results: {tmp / 'results.json'}")


if __name__ == "__main__":
    main()
