"""Plain mode at scale (issue 28): `rivulet --plain` in a real pty against scale_bench's
server, with `rivulet exec` beside it in the same run.

* **items**: one response of 1,000 / 10,000 items: request to the last item's text in the
  output, CPU of the process tree (scale_bench's `chat_items`, the plain chat as the peer).
* **resume**: `rivulet resume ID --plain` of a 2,000-turn session against a fresh
  `rivulet --plain`, alternated: launch to the prompt, to a key echoed, to the last answer printed.
* **soak**: 240 turns (reasoning, an apply_patch call, a 400-delta Markdown answer):
  CPU seconds per turn and RSS, the first tenth against the last tenth.

Run: .venv/bin/python benchmarks/plain_bench.py [--items 1000,10000] [--resume 2000] [--turns 240]
Not a test and not in CI: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
import live_bench as lb
import scale_bench as sb


class PlainRivulet(lb.Rivulet):
    name = "rivulet --plain"
    ready = r"you>"  # the input prompt
    quit_keys: ClassVar[list[bytes]] = [b"\x04"]  # Ctrl-D

    def argv(self) -> list[str]:
        return [*super().argv(), "--plain"]


class PlainBench(sb.Bench):
    def rivulet(self, name: str, extra: list[str] | None = None) -> lb.Rivulet:
        sub = self.tmp / name
        (sub / "ws").mkdir(parents=True, exist_ok=True)
        (sub / "home").mkdir(exist_ok=True)
        return PlainRivulet(sub, self.server.base_url, extra)

    def soak(self) -> None:
        turns = self.args.turns
        self.log(f"soak: {turns} turns")
        peer = self.rivulet("soak")
        p = lb.PtyProc(peer.argv(), peer.env(), str(peer.tmp / "ws"))
        plan = self.server.plan
        rows: list[dict[str, float]] = []
        try:
            if p.wait_text(peer.ready, 30) is None:
                self.add("soak", "error", "no prompt")
                return
            self.quiet(p)
            deltas = lb.markdown_deltas(self.args.soak_deltas)
            for n in range(1, turns + 1):
                marks: dict[str, Any] = {}

                def ended(marks: dict[str, Any] = marks) -> None:  # before response.completed: the next prompt
                    marks["done"] = sb.expect(p, "you>")

                plan.arm(self.args.soak_rate, deltas, None, ended)
                c0, t0 = lb.cpu_seconds(p.pid), time.monotonic()
                p.write(f"soak turn {n}")
                p.write(b"\r")
                if not plan.md_end.wait(60):
                    self.log(f"  soak turn {n}: the answer never finished")
                    break
                w = marks["done"]
                seen = sb.wait_seen(p, w, 30)
                rows.append({"cpu": lb.cpu_seconds(p.pid) - c0, "wall": time.monotonic() - t0,
                             "rss": lb.memory_mb(p.pid)[1], "done": None if seen is None else seen - w[0]})
                if n % 40 == 0:
                    self.log(f"  turn {n}: {rows[-1]['cpu']:.2f} CPU s, RSS {rows[-1]['rss']:.0f} MB")
        finally:
            p.stop(peer.quit_keys)
        self.results["soak"] = rows
        if len(rows) < 20:
            self.add("soak", "error", f"only {len(rows)} turns")
            return
        k = max(1, len(rows) // 10)
        cf = sb.median([r["cpu"] for r in rows[:k]]) or 0.0
        cl = sb.median([r["cpu"] for r in rows[-k:]]) or 0.0
        done = sb.median([r["done"] for r in rows if r["done"] is not None])
        self.add(f"soak {len(rows)} turns (plain)", "CPU s per turn, first / last tenth (median)",
                 f"{cf:.3f} / {cl:.3f}", f"{cl / cf:.2f}x" if cf else "")
        self.add(f"soak {len(rows)} turns (plain)", "RSS MB at turn 1 / 20 / last",
                 f"{rows[0]['rss']:.0f} / {rows[19]['rss']:.0f} / {rows[-1]['rss']:.0f}")
        self.add(f"soak {len(rows)} turns (plain)", "response.completed to the next prompt, median",
                 sb.fmt_ms(done))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="items,resume,soak")
    ap.add_argument("--items", default="1000,10000")
    ap.add_argument("--item-timeout-ms", type=float, default=15.0)
    ap.add_argument("--repeat", type=int, default=1, help="items: repetitions, exec and plain alternated")
    ap.add_argument("--resume", default="2000")
    ap.add_argument("--resume-repeat", type=int, default=3, help="resume: repetitions, alternated with a fresh start")
    ap.add_argument("--turns", type=int, default=240)
    ap.add_argument("--soak-rate", type=float, default=2000.0)
    ap.add_argument("--soak-deltas", type=int, default=400)
    args = ap.parse_args()
    args.peers, args.codex = "rivulet", Path("/nonexistent")
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    tmp = Path(tempfile.mkdtemp(prefix="plain_bench."))
    subprocess.run([str(lb.VENV_BIN / "python"), "-m", "compileall", "-q", *(str(lb.ROOT / d) for d in
                    ("app", "core", "widgets", "themes"))], check=True, stdout=subprocess.DEVNULL)
    server = sb.ScaleServer()
    load = os.getloadavg()
    bench = PlainBench(args, tmp, server, log)
    try:
        for section in args.only.split(","):
            getattr(bench, section)()
    finally:
        server.shutdown()
    print("| section | measure | result | note |\n|---|---|---|---|")
    for row in bench.rows:
        print("| " + " | ".join(row).replace("rivulet chat", "rivulet --plain") + " |")
    print(f"\n{os.cpu_count()} cores, load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
