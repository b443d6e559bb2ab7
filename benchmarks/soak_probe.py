"""What grows over a long chat, headless and in process (scale_bench.py's soak runs the
real program in a terminal; this one can look inside it).

Each turn is what scale_bench's soak turn shows: the prompt's entry, a reasoning summary,
an apply_patch call and its output, and a Markdown answer in word-sized deltas, published
on the bus a few at a time with the event loop turning between them. Reports CPU seconds
per turn (first tenth against last tenth), the widget count, and a tracemalloc diff of
what was allocated between two turns (`--diff-from`, the last turn), by line.

Run: python benchmarks/soak_probe.py [--turns 240] [--diff-from 40] [--top 25] [--no-trace]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_bench import REASONING, markdown_deltas, patch_text
from transcript_probe import _NullTransport

from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.turn import bus as b


async def one_turn(app: RivuletApp, n: int, deltas: list[str]) -> None:
    pub = app.bus.publish
    pub(b.TurnStarted(n, f"soak turn {n}"))
    pub(b.ItemCompleted({"type": "message", "role": "user", "content": [{"type": "input_text",
                                                                            "text": f"soak turn {n}"}]}, f"user-{n}"))
    await asyncio.sleep(0.01)
    rid = f"rs_{n}"
    reasoning = {"id": rid, "type": "reasoning", "summary": [{"type": "summary_text", "text": REASONING}]}
    pub(b.ItemStarted({**reasoning, "summary": []}, rid))
    pub(b.ItemDelta(rid, "reasoning_summary_text", REASONING))
    pub(b.ItemCompleted(reasoning, rid))
    call = {"id": f"fc_{n}", "type": "function_call", "call_id": f"call_{n}", "name": "apply_patch",
            "arguments": json.dumps({"input": patch_text(f"bench_{n}.txt")})}
    pub(b.ItemCompleted(call, call["id"]))
    pub(b.ItemCompleted({"type": "function_call_output", "call_id": f"call_{n}", "output": "Done"}, f"out_{n}"))
    await asyncio.sleep(0.01)
    mid = f"msg_{n}"
    pub(b.ItemStarted({"id": mid, "type": "message", "role": "assistant", "content": []}, mid))
    for start in range(0, len(deltas), 8):  # 2,000 deltas/s: 8 per 4 ms
        for d in deltas[start:start + 8]:
            pub(b.ItemDelta(mid, "output_text", d))
        await asyncio.sleep(0.004)
    text = "".join(deltas)
    pub(b.ItemCompleted({"id": mid, "type": "message", "role": "assistant",
                         "content": [{"type": "output_text", "text": text}]}, mid))
    pub(b.TurnCompleted(n, None, text, None, None, None))
    await asyncio.sleep(0.05)
    await app.bus.drain()


async def soak(turns: int, diff_from: int, top: int, trace: bool) -> None:
    app = RivuletApp(Settings(base_url="http://bench.invalid/v1", api_key="sk-bench"), _NullTransport(),
                     remember_theme=False, frame_interval=1 / 60)
    deltas = markdown_deltas(400)
    cpu: list[float] = []
    first = None
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        for n in range(1, turns + 1):
            c0 = time.process_time()
            await one_turn(app, n, deltas)
            await pilot.pause()
            cpu.append(time.process_time() - c0)
            if trace and n == diff_from:
                gc.collect()
                first = tracemalloc.take_snapshot()
            if n % 20 == 0:
                widgets = len(list(app.screen.walk_children()))
                print(f"turn {n}: {cpu[-1]:.3f} CPU s, {widgets} widgets, "
                      f"traced {tracemalloc.get_traced_memory()[0] / 1e6:.1f} MB", flush=True)
        from collections import Counter
        kinds = Counter(type(w).__name__ for w in app.screen.walk_children())
        print("widgets by class:", ", ".join(f"{k} {v}" for k, v in kinds.most_common(12)))
        gc.collect()
        last = tracemalloc.take_snapshot() if trace else None
    k = max(1, turns // 10)
    cf, cl = statistics.median(cpu[:k]), statistics.median(cpu[-k:])
    print(f"CPU s per turn, first / last tenth: {cf:.3f} / {cl:.3f} ({cl / cf:.2f}x)")
    if first is not None and last is not None:
        stats = last.compare_to(first, "lineno")
        grown = sum(s.size_diff for s in stats)
        print(f"allocated between turn {diff_from} and {turns}: {grown / 1e6:+.2f} MB; the top lines:")
        for s in stats[:top]:
            where = s.traceback[0]
            print(f"  {s.size_diff / 1e3:+9.1f} kB {s.count_diff:+7d}  {where.filename}:{where.lineno}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=240)
    ap.add_argument("--diff-from", type=int, default=40)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--no-trace", action="store_true", help="CPU only (tracemalloc slows everything)")
    args = ap.parse_args()
    config = Path(tempfile.mkdtemp()) / "config.toml"
    config.write_text("")
    os.environ["RIVULET_CONFIG"] = str(config)
    if not args.no_trace:
        tracemalloc.start(1)
    asyncio.run(soak(args.turns, args.diff_from, args.top, not args.no_trace))


if __name__ == "__main__":
    main()
