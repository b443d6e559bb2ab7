"""A quick probe of the transcript's cost with many committed items (headless, in process).

* **items**: one response of N output items (each started, three deltas, committed), published
  as fast as a server could send them; the clock stops when the last one is drawn. Reports
  wall and CPU seconds, CPU ms per item, and how many layout passes (`Compositor.reflow`) ran.
* **resume**: a session of N turns (question + answer) resumed; the clock stops when the
  last answer is drawn.

Not the full benchmark (benchmarks/scale_bench.py runs the real program in a terminal).
Run: python benchmarks/transcript_probe.py [--items 1000 2000 10000] [--turns 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time

from textual._compositor import Compositor

from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.turn import bus as b

_reflows = 0
_reflow = Compositor.reflow


def _counting_reflow(self, *args, **kwargs):  # type: ignore[no-untyped-def]
    global _reflows
    _reflows += 1
    return _reflow(self, *args, **kwargs)


Compositor.reflow = _counting_reflow  # type: ignore[method-assign]


class _NullTransport:
    name = "null"

    async def stream(self, body):  # never used: the probe publishes on the bus itself
        if False:
            yield None

    async def aclose(self):
        pass


def _item(n: int) -> dict:
    return {"id": f"msg_{n}", "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": f"Item {n}: a short answer with **bold** text.\n"}]}


def _screen_text(app: RivuletApp) -> str:
    """What the screen shows now (the compositor's lines, as a frame would draw them)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def items(n: int, chunk: int, gap: float) -> None:
    global _reflows
    app = RivuletApp(Settings(base_url="http://bench.invalid/v1", api_key="sk-bench"), _NullTransport(),
                     remember_theme=False, frame_interval=1 / 60)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause(0.2)
        _reflows = 0
        cpu, wall = time.process_time(), time.perf_counter()
        app.bus.publish(b.TurnStarted(1, "probe"))
        for start in range(0, n, chunk):
            for i in range(start, min(n, start + chunk)):
                item = _item(i)
                app.bus.publish(b.ItemStarted({**item, "content": []}, item["id"]))
                for piece in (f"Item {i}: ", "a short answer ", "with **bold** text.\n"):
                    app.bus.publish(b.ItemDelta(item["id"], "output_text", piece))
                app.bus.publish(b.ItemCompleted(item, item["id"]))
            await asyncio.sleep(gap)  # the network: the app handles what came meanwhile
        last = f"Item {n - 1}:"
        while last not in _screen_text(app):
            await asyncio.sleep(0.02)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{n:6} items: wall {wall:6.2f} s  cpu {cpu:6.2f} s  {cpu / n * 1e3:5.2f} cpu-ms/item  "
              f"layout passes {_reflows}", flush=True)


def _session(turns: int):
    from rivulet.core import items as it
    from rivulet.core.store.session import Session, SessionMeta
    from rivulet.core.turn.history import History

    history = History()
    answer = "Some **answer** text with `code`. " * 15 + "\n\n- a\n- b\n"
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 1}")
        history.append({"id": f"m{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": f"Answer {n}. " + answer}]}, "req-1", f"m{n}")
    return Session(SessionMeta("probe", 0, "/", "m", "u"), history)


async def resume(turns: int) -> None:
    session = _session(turns)
    wall, cpu = time.perf_counter(), time.process_time()
    app = RivuletApp(Settings(base_url="http://bench.invalid/v1", api_key="sk-bench"), _NullTransport(),
                     remember_theme=False, frame_interval=1 / 60, session=session)
    async with app.run_test(size=(120, 50)):
        last = f"Answer {turns - 1}."
        while last not in _screen_text(app):
            await asyncio.sleep(0.02)
        print(f"{turns:6} turns resumed: last answer drawn at {time.perf_counter() - wall:6.2f} s "
              f"(cpu {time.process_time() - cpu:6.2f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, nargs="*", default=[1000, 2000])
    ap.add_argument("--turns", type=int, nargs="*", default=[2000])
    ap.add_argument("--chunk", type=int, default=20, help="items published between two turns of the event loop")
    ap.add_argument("--gap", type=float, default=0.002, help="seconds between two chunks")
    args = ap.parse_args()
    config = os.path.join(tempfile.mkdtemp(), "config.toml")
    open(config, "w").close()  # RIVULET_CONFIG must name a file
    os.environ["RIVULET_CONFIG"] = config
    for n in args.items:
        asyncio.run(items(n, args.chunk, args.gap))
    for t in args.turns:
        asyncio.run(resume(t))


if __name__ == "__main__":
    main()
