"""Live-pane throughput: 20,000 deltas (a 1 MB message) through the app, headless.

Deltas go the real way: published on the core bus, bridged into Textual messages,
buffered by the live pane and flushed once per frame into Markdown segments. The
script feeds them in batches and waits until each batch is on screen, so the time
includes rendering. It reports deltas/s, the per-delta cost in the first and the last
10% of the message, and (for scale) the naive way: one `Markdown.append` per delta.

Run: python benchmarks/ui_bench.py [--deltas N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time

from rivulet.app.tui import RivuletApp
from rivulet.core import bus as b
from rivulet.core.config import Settings
from rivulet.widgets.live import LiveMessage

WORDS = "Streaming text arrives in small deltas, **bold** now and then, `code` too. ".split(" ")


def make_deltas(n: int, total_bytes: int) -> list[str]:
    per = max(1, total_bytes // n)
    out, line = [], 0
    for i in range(n):
        d = (WORDS[i % len(WORDS)] + " ") * 8
        d = d[:per - 1] + (" " if i % 40 else "\n\n")  # paragraphs every 40 deltas
        out.append(d)
        line += 1
    return out


class _NullTransport:
    name = "null"

    async def stream(self, body):  # never used: the benchmark publishes on the bus itself
        if False:
            yield None

    async def aclose(self):
        pass


async def run(n: int, batch: int, naive_n: int = 2000) -> None:
    os.environ["RIVULET_CONFIG"] = os.path.join(tempfile.mkdtemp(), "config.toml")
    deltas = make_deltas(n, 1_000_000)
    app = RivuletApp(Settings(base_url="http://bench.invalid/v1", api_key="sk-bench"), _NullTransport(),
                     remember_theme=False)
    async with app.run_test(size=(120, 50)) as pilot:
        item = {"id": "msg_bench", "type": "message", "role": "assistant", "content": []}
        app.bus.publish(b.TurnStarted(1, "bench"))
        app.bus.publish(b.ItemStarted(item, "msg_bench"))
        while "msg_bench" not in app.live:
            await pilot.pause(0.005)
        pane = app.live["msg_bench"]
        assert isinstance(pane, LiveMessage)
        # Publish as fast as the app takes them: each batch is published, then the
        # loop yields until the pane has received it (frames render in between, on the
        # same event loop, so rendering cost slows this down if it falls behind).
        marks: list[float] = []
        sent_chars = 0
        start = time.perf_counter()
        for i in range(0, n, batch):
            for d in deltas[i:i + batch]:
                app.bus.publish(b.ItemDelta("msg_bench", "output_text", d))
                sent_chars += len(d)
            while pane.shown + sum(map(len, pane._pending)) < sent_chars:
                await asyncio.sleep(0)
            marks.append(time.perf_counter())
        # Then until every delta is on screen in the live pane.
        while pane.shown < sent_chars:
            await asyncio.sleep(0.001)
        total = time.perf_counter() - start
        # The commit: the live pane gives way to one full render of the whole message.
        t0 = time.perf_counter()
        app.bus.publish(b.ItemCompleted({**item, "content": [{"type": "output_text", "text": "".join(deltas)}]},
                                        "msg_bench"))
        while "msg_bench" in app.live or not app._transcript.query("AssistantEntry"):
            await asyncio.sleep(0.001)
        await pilot.pause()
        commit = time.perf_counter() - t0
        segments = pane.segments
        tenth = max(1, len(marks) // 10)
        first = (marks[tenth - 1] - start) / (tenth * batch)
        last = (marks[-1] - marks[-tenth - 1]) / (tenth * batch)
        print(f"{n} deltas, {sent_chars / 1e6:.2f} MB message, {segments} Markdown segments")
        print(f"batched live pane: {n / total:10,.0f} deltas/s (until every delta was on screen)")
        print(f"commit of the whole message as one history entry: {commit:.2f} s")
        print(f"per-delta cost, first 10%: {first * 1e6:8.1f} us   last 10%: {last * 1e6:8.1f} us   "
              f"ratio last/first: {last / first:.2f}")

    # The naive way, for scale: one widget update per delta (fewer deltas: it is slow).
    from textual.app import App, ComposeResult
    from textual.widgets import Markdown

    class Naive(App):
        def compose(self) -> ComposeResult:
            yield Markdown()

    naive_n = min(n, naive_n)
    if not naive_n:
        return
    app2 = Naive()
    async with app2.run_test(size=(120, 50)):
        md = app2.query_one(Markdown)
        t0 = time.perf_counter()
        for d in deltas[:naive_n]:
            await md.append(d)
        naive = naive_n / (time.perf_counter() - t0)
    print(f"naive (Markdown.append per delta, first {naive_n}): {naive:10,.0f} deltas/s")
    print(f"ratio batched / naive: {n / total / naive:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deltas", type=int, default=20_000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--naive", type=int, default=2000, help="deltas for the naive comparison (0: skip it)")
    args = ap.parse_args()
    asyncio.run(run(args.deltas, args.batch, args.naive))


if __name__ == "__main__":
    main()
