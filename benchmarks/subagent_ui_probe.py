"""The chat's cost of subagents streaming (issue 41): CPU per delta with N subagents
streaming at once, each in its pane under its call, against one conversation streaming
alone. Headless, the real app, the real 60 Hz frame tick; deltas published on the bus
as the core relays them (SubagentEvent around ItemDelta), paced like a server: every
`--every` ms, one delta per stream.

The figure that matters: CPU per delta stays about the same with 4 streams (the frame
tick flushes every pane once per frame; a subagent's delta re-lays out its own small
pane, not the transcript), so a turn with 4 subagents costs about 4 times one
conversation, not more.

Run: python benchmarks/subagent_ui_probe.py [--deltas 600] [--every 10] [--history 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time

from rivulet.app.tui import RivuletApp
from rivulet.core.config import Settings
from rivulet.core.subagents.events import SubagentEvent, SubagentStarted
from rivulet.core.turn import bus as b

WORDS = ["streaming", "text", "arrives", "in", "small", "deltas", "with", "**bold**", "now", "and", "then",
         "`code`", "too"]


class _NullTransport:
    name = "null"

    async def stream(self, body):  # never used: the probe publishes on the bus itself
        if False:
            yield None

    async def aclose(self):
        pass


def delta(n: int) -> str:
    return " ".join(WORDS[(n + k) % len(WORDS)] for k in range(4)) + ("\n" if n % 4 == 3 else " ")


def message(mid: str) -> dict:
    return {"id": mid, "type": "message", "role": "assistant", "status": "in_progress", "content": []}


def spawn(n: int) -> dict:
    return {"id": f"fc_{n}", "type": "function_call", "status": "completed", "call_id": f"call_{n}",
            "name": "spawn_agent", "arguments": f'{{"task": "task {n}", "name": "agent {n}"}}'}


def _history(turns: int):
    """A resumed session of `turns` question/answer pairs: a transcript to lay out."""
    from rivulet.core import items as it
    from rivulet.core.store.session import Session, SessionMeta
    from rivulet.core.turn.history import History

    history = History()
    for n in range(turns):
        history.append(it.user_message(f"question {n}"), key=f"user-{n + 1}")
        history.append({"id": f"a{n}", "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "Some **answer** text. " * 20}]}, "r", f"a{n}")
    return Session(SessionMeta("bench", 0, "/", "m", "u"), history)


async def stream(streams: int, deltas: int, every: float, history: int = 0) -> tuple[float, float]:
    """(CPU seconds, wall seconds) to stream `deltas` deltas into each of `streams` panes:
    0 streams means one conversation's own message; `history`: turns of a resumed session above."""
    app = RivuletApp(Settings(base_url="http://bench.invalid/v1", api_key="sk-bench"), _NullTransport(),
                     remember_theme=False, session=_history(history) if history else None)
    async with app.run_test(size=(120, 50)) as pilot:
        if history:
            await pilot.pause(1.0)  # the resumed transcript built first
        bus = app.bus
        bus.publish(b.TurnStarted(1, "bench"))
        if streams == 0:
            bus.publish(b.ItemStarted(message("m"), "m"))
            panes = lambda: [app.live_panes.live.get("m")]  # noqa: E731
        else:
            for n in range(streams):
                bus.publish(b.ItemCompleted(spawn(n), f"fc_{n}"))
            for n in range(streams):
                bus.publish(SubagentStarted(f"sa-{n}", f"call_{n}", f"agent {n}", f"task {n}"))
                bus.publish(SubagentEvent(f"sa-{n}", f"call_{n}", b.ItemStarted(message("m"), "m")))
            panes = lambda: [app.live_panes.nested.get((f"sa-{n}", "m")) for n in range(streams)]  # noqa: E731
        while not all(panes()):
            await pilot.pause(0.01)
        total = sum(len(delta(i)) for i in range(deltas))
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(deltas):
            text = delta(i)
            for n in range(max(1, streams)):
                bus.publish(b.ItemDelta("m", "output_text", text) if streams == 0 else
                            SubagentEvent(f"sa-{n}", f"call_{n}", b.ItemDelta("m", "output_text", text)))
            await asyncio.sleep(every)
        while not all(p is not None and p.shown >= total for p in panes()):
            await asyncio.sleep(0.005)
        return time.process_time() - cpu, time.perf_counter() - wall


async def run(deltas: int, every: float, history: int) -> None:
    config = os.path.join(tempfile.mkdtemp(), "config.toml")
    open(config, "w").close()  # an empty config: the defaults, none of the user's
    os.environ["RIVULET_CONFIG"] = config
    one_cpu, one_wall = await stream(0, deltas, every, history)
    print(f"1 conversation: {deltas} deltas, CPU {one_cpu:.2f} s over {one_wall:.1f} s, "
          f"{one_cpu / deltas * 1e6:.0f} us per delta")
    for streams in (1, 4):
        cpu, wall = await stream(streams, deltas, every, history)
        n = deltas * streams
        print(f"{streams} subagent{'s' if streams > 1 else ''}: {n} deltas, CPU {cpu:.2f} s over {wall:.1f} s, "
              f"{cpu / n * 1e6:.0f} us per delta; CPU x{cpu / one_cpu:.2f} one conversation's")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deltas", type=int, default=600, help="deltas per stream")
    ap.add_argument("--every", type=float, default=10, help="ms between deltas")
    ap.add_argument("--history", type=int, default=0, help="turns of a resumed conversation above")
    args = ap.parse_args()
    asyncio.run(run(args.deltas, args.every / 1000, args.history))


if __name__ == "__main__":
    main()
