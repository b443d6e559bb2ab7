"""Subagents benchmark (issue 41): CPU per turn with 4 subagents streaming at once, against
one conversation's turn streaming one answer, side by side in one run (target ≤ 4.5×).

Both turns run in this process on the real engine (core/assembly.py, the SSE transport,
the agent tools) against a local scripted server in a thread: the server tells the
conversations apart by their first user message. One conversation: one answer of N
deltas. With subagents: the parent's first response is 4 `spawn_agent` calls, each
subagent answers with N deltas (all 4 stream at once), the parent's follow-up is a short
answer. Each answer is written in paced chunks, so the 4 streams really interleave. A
front end is subscribed as `exec --json` is (every event encoded as its JSON line, not
printed), so the relayed events cost what they cost a front end. CPU is the event loop
thread's own (`time.thread_time`: the server's threads are left out); medians of the
repetitions, the two turns alternated, after a warm-up turn and the start-up heap frozen
as the chat and `rivulet acp` freeze it (app/gc_pacing.py).

Run: .venv/bin/python benchmarks/subagent_bench.py [--deltas N] [--repeat R]
Not a test and not in CI: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec

AGENTS = 4
CHUNKS = 40  # writes per answer, paced
PACE = 0.002  # seconds between two writes


def _emit(type_: str, **fields: Any) -> bytes:
    return f"event: {type_}\ndata: {json.dumps({'type': type_, **fields}, separators=(',', ':'))}\n\n".encode()


def answer_events(rid: str, n: int) -> list[bytes]:
    mid = f"msg_{rid}"
    out = [_emit("response.created", response={"id": rid, "status": "in_progress", "output": []}),
           _emit("response.output_item.added", output_index=0,
                 item={"id": mid, "type": "message", "status": "in_progress", "role": "assistant", "content": []}),
           _emit("response.content_part.added", item_id=mid, output_index=0, content_index=0,
                 part={"type": "output_text", "annotations": [], "text": ""})]
    out += [_emit("response.output_text.delta", item_id=mid, output_index=0, content_index=0, delta=f"w{i} ")
            for i in range(n)]
    text = "".join(f"w{i} " for i in range(n))
    part = {"type": "output_text", "annotations": [], "text": text}
    item = {"id": mid, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
    out += [_emit("response.output_text.done", item_id=mid, output_index=0, content_index=0, text=text),
            _emit("response.output_item.done", output_index=0, item=item),
            _emit("response.completed", response={"id": rid, "status": "completed", "output": [item],
                                                  "usage": {"input_tokens": 10, "output_tokens": n,
                                                            "total_tokens": n + 10}})]
    return out


def spawn_events(rid: str) -> list[bytes]:
    calls = [{"id": f"fc_{i}", "type": "function_call", "status": "completed", "call_id": f"call_{i}",
              "name": "spawn_agent", "arguments": json.dumps({"task": f"task {i}", "name": f"bench {i}"})}
             for i in range(AGENTS)]
    out = [_emit("response.created", response={"id": rid, "status": "in_progress", "output": []})]
    for n, call in enumerate(calls):
        out += [_emit("response.output_item.added", output_index=n, item={**call, "arguments": ""}),
                _emit("response.output_item.done", output_index=n, item=call)]
    out.append(_emit("response.completed", response={"id": rid, "status": "completed", "output": calls,
                                                     "usage": {"input_tokens": 10, "output_tokens": 40,
                                                               "total_tokens": 50}}))
    return out


class Handler(BaseHTTPRequestHandler):
    server: BenchServer
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        sent = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        first = next(i for i in sent["input"] if i.get("role") == "user")
        prompt = "".join(p.get("text", "") for p in first["content"])
        has_outputs = any(i.get("type") == "function_call_output" for i in sent["input"])
        n = self.server.deltas
        if prompt == "with subagents":
            events = answer_events("r_final", 5) if has_outputs else spawn_events("r_spawn")
        else:  # "one conversation", or a subagent's "task i"
            events = answer_events("r_answer", n)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        step = max(1, len(events) // CHUNKS)
        try:
            for i in range(0, len(events), step):
                data = b"".join(events[i:i + step])
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
                time.sleep(PACE)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: Any) -> None:
        pass


class BenchServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, deltas: int) -> None:
        super().__init__(("127.0.0.1", 0), Handler)  # loopback only, a free port
        self.deltas = deltas
        threading.Thread(target=self.serve_forever, name="bench-server", daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


async def one_turn(base_url: str, workspace: Path, prompt: str) -> tuple[float, int, str | None]:
    """(the event loop thread's CPU seconds for the turn, events the front end saw, the answer)."""
    from rivulet.core.assembly import FrontEnd, Ground, open_conversation
    from rivulet.core.config import Settings
    from rivulet.core.tools.router import tool_settings
    from rivulet.core.turn.bus import BusEvent, EventBus

    settings = Settings(base_url=base_url, api_key="sk-bench-not-a-key", save_sessions=False, checkpoints=False,
                        workspace=str(workspace), max_retries=0)
    bus = EventBus()
    seen = [0]
    encode = msgspec.json.Encoder().encode

    def front_end(event: BusEvent) -> None:  # as exec --json: each event as its JSON line
        seen[0] += 1
        encode(event.to_json())

    bus.subscribe(front_end)
    engine = open_conversation(Ground(settings=settings, tool_settings=tool_settings(settings)),
                               FrontEnd(name="bench", bus=bus))
    engine.start()
    start = time.thread_time()
    result = await engine.submit(prompt)
    await bus.drain()
    cpu = time.thread_time() - start
    await engine.aclose()
    return cpu, seen[0], result.last_message


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=2000, help="deltas of each streamed answer")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    server = BenchServer(args.deltas)
    one: list[float] = []
    four: list[float] = []
    events = {}
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(one_turn(server.base_url, Path(tmp), "one conversation"))  # warm: imports, first connect
        # As the chat and `rivulet acp` do once start-up is over (app/gc_pacing.py): what it left
        # alive is never walked again, so a full collection's pause does not land at random in
        # one turn or the other (without it, one turn's CPU varied by a third between runs).
        gc.collect()
        gc.freeze()
        for _ in range(args.repeat):
            cpu, events["one"], answer = asyncio.run(one_turn(server.base_url, Path(tmp), "one conversation"))
            assert answer and answer.startswith("w0 "), answer
            one.append(cpu)
            cpu, events["four"], answer = asyncio.run(one_turn(server.base_url, Path(tmp), "with subagents"))
            assert answer == "w0 w1 w2 w3 w4 ", answer
            four.append(cpu)
    server.shutdown()
    a, b = statistics.median(one), statistics.median(four)
    print(f"deltas per answer: {args.deltas}; repetitions: {args.repeat}; {AGENTS} subagents")
    print("| turn | CPU per turn (median) | min / max | events seen by the front end |")
    print("|---|---|---|---|")
    print(f"| one conversation, one answer | {a * 1000:.1f} ms | {min(one) * 1000:.1f} / {max(one) * 1000:.1f} ms "
          f"| {events['one']} |")
    print(f"| {AGENTS} subagents streaming at once | {b * 1000:.1f} ms | {min(four) * 1000:.1f} / "
          f"{max(four) * 1000:.1f} ms | {events['four']} |")
    print(f"\nratio: {b / a:.2f}× (target ≤ 4.5×)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
