"""Live-pane throughput: 20,000 deltas (a 1 MB message) through the app, headless.

Deltas go the real way: published on the core bus, bridged into Textual messages,
buffered by the live pane and flushed once per frame into Markdown segments. Two runs:

* **flood**: the deltas are published as fast as a server could send them (batches,
  the event loop free in between) with the app's real 60 Hz frame tick; the clock stops
  when every delta is on screen. This is the deltas/s figure.
* **paced**: each batch is published only when the previous one is on screen, with a
  1 ms frame tick so that frames do not hide the cost.
  The time per delta in the first and in the last 10% of the message shows whether
  the cost grows with the message.

Then the commit: the live pane gives way to the history entry of the whole message.
For scale, the naive way (one `Markdown.append` per delta) runs on fewer deltas.

Run: python benchmarks/ui_bench.py [--deltas N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import tempfile
import time

from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.turn import bus as b
from rivulet.widgets.live import LiveMessage

WORDS = ["Streaming", "text", "arrives", "in", "small", "deltas,", "**bold**", "now", "and", "then,", "`code`", "too."]


def make_deltas(n: int, total_bytes: int) -> list[str]:
    per = max(1, total_bytes // n)
    out = []
    for i in range(n):
        d = (WORDS[i % len(WORDS)] + " ") * 8
        d = d[:per - 1] + (" " if i % 40 else "\n\n")  # paragraphs every 40 deltas
        if i % 2000 == 1000:  # now and then a code block
            d = "\n\n```python\nfor i in range(3):\n    print(i)\n```\n\n"
        out.append(d)
    return out


class _NullTransport:
    name = "null"

    async def stream(self, body):  # never used: the benchmark publishes on the bus itself
        if False:
            yield None

    async def aclose(self):
        pass


ITEM = {"id": "msg_bench", "type": "message", "role": "assistant", "content": []}


async def _open_pane(app: RivuletApp, pilot) -> LiveMessage:
    app.bus.publish(b.TurnStarted(1, "bench"))
    app.bus.publish(b.ItemStarted(ITEM, "msg_bench"))
    while "msg_bench" not in app.live:
        await pilot.pause(0.005)
    pane = app.live["msg_bench"]
    assert isinstance(pane, LiveMessage)
    return pane


def _history(turns: int):
    """A resumed session of `turns` question/answer pairs (for the long-conversation run)."""
    from rivulet.core import items as it
    from rivulet.core.store.session import Session, SessionMeta
    from rivulet.core.turn.history import History

    history = History()
    answer = "Some **answer** text with `code`. " * 15 + "\n\n- a\n- b\n"
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 1}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": answer}]}, "req-1", f"m{n}")
    return Session(SessionMeta("bench", 0, "/", "m", "u"), history)


def _app(frame_interval: float, history_turns: int = 0) -> RivuletApp:
    return RivuletApp(Settings(base_url="http://bench.invalid/v1", api_key="sk-bench"), _NullTransport(),
                      remember_theme=False, frame_interval=frame_interval,
                      session=_history(history_turns) if history_turns else None)


async def flood(deltas: list[str], batch: int, history_turns: int = 0) -> tuple[float, float, int]:
    """(deltas/s until all shown, seconds to commit the message, segments)."""
    app = _app(1 / 60, history_turns)
    async with app.run_test(size=(120, 50)) as pilot:
        if history_turns:
            await pilot.pause(1.0)  # let the resumed transcript build first
        pane = await _open_pane(app, pilot)
        total_chars = sum(map(len, deltas))
        start = time.perf_counter()
        for i in range(0, len(deltas), batch):
            for d in deltas[i:i + batch]:
                app.bus.publish(b.ItemDelta("msg_bench", "output_text", d))
            await asyncio.sleep(0)
        while pane.shown < total_chars:
            await asyncio.sleep(0.001)
        rate = len(deltas) / (time.perf_counter() - start)
        t0 = time.perf_counter()
        text = "".join(deltas)
        app.bus.publish(b.ItemCompleted({**ITEM, "content": [{"type": "output_text", "text": text}]}, "msg_bench"))
        while "msg_bench" in app.live or not app._transcript.query("AssistantEntry"):
            await asyncio.sleep(0.001)
        await pilot.pause()
        return rate, time.perf_counter() - t0, pane.segments


async def paced(deltas: list[str], batch: int) -> tuple[float, float]:
    """Seconds per delta in the first and in the last 10% of the message (medians).

    Each batch is published only when the previous one is on screen, with a 1 ms frame
    tick, so the time per batch is the work of showing it rather than a wait for the
    next frame.
    """
    app = _app(0.001)
    async with app.run_test(size=(120, 50)) as pilot:
        pane = await _open_pane(app, pilot)
        sent = 0
        last_newline = 0  # characters up to the last newline sent (the gate holds a partial line)
        marks: list[float] = [time.perf_counter()]
        for i in range(0, len(deltas), batch):
            for d in deltas[i:i + batch]:
                app.bus.publish(b.ItemDelta("msg_bench", "output_text", d))
                cut = d.rfind("\n")
                if cut >= 0:
                    last_newline = sent + cut + 1
                sent += len(d)
            while pane.shown < last_newline or pane.flushing:
                await asyncio.sleep(0)
            marks.append(time.perf_counter())
        # Medians of the batch times: a garbage collection or a timer tick landing in
        # one batch is noise, a cost that grows with the message moves the median.
        times = [b - a for a, b in itertools.pairwise(marks)]
        tenth = max(1, len(times) // 10)
        return statistics.median(times[:tenth]) / batch, statistics.median(times[-tenth:]) / batch


async def naive(deltas: list[str]) -> float:
    from textual.app import App, ComposeResult
    from textual.widgets import Markdown

    class Naive(App):
        def compose(self) -> ComposeResult:
            yield Markdown()

    app = Naive()
    async with app.run_test(size=(120, 50)):
        md = app.query_one(Markdown)
        t0 = time.perf_counter()
        for d in deltas:
            await md.append(d)
        return len(deltas) / (time.perf_counter() - t0)


async def run(n: int, batch: int, naive_n: int) -> None:
    os.environ["RIVULET_CONFIG"] = os.path.join(tempfile.mkdtemp(), "config.toml")
    deltas = make_deltas(n, 1_000_000)
    size = sum(map(len, deltas))
    rate, commit, segments = await flood(deltas, batch)
    print(f"{n} deltas, {size / 1e6:.2f} MB message, {segments} Markdown segments")
    print(f"flood: {rate:10,.0f} deltas/s until every delta was on screen (60 Hz frames)")
    print(f"commit of the whole message as one history entry: {commit:.2f} s")
    long_rate, _, _ = await flood(deltas[: len(deltas) // 4], batch, history_turns=200)
    print(f"flood after a 200-turn conversation (first quarter of the deltas): {long_rate:10,.0f} deltas/s")
    first, last = await paced(deltas, max(1, batch // 4))  # more, smaller batches: steadier medians
    print(f"paced: per-delta cost, first 10%: {first * 1e6:7.1f} us   last 10%: {last * 1e6:7.1f} us   "
          f"ratio last/first: {last / first:.2f}")
    if naive_n:
        slow = await naive(deltas[:naive_n])
        print(f"naive (Markdown.append per delta, first {naive_n}): {slow:10,.0f} deltas/s; "
              f"flood / naive: {rate / slow:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deltas", type=int, default=20_000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--naive", type=int, default=2000, help="deltas for the naive comparison (0: skip it)")
    args = ap.parse_args()
    asyncio.run(run(args.deltas, args.batch, args.naive))


if __name__ == "__main__":
    main()
