"""Live benchmark: the real rivulet TUI in a real pseudo-terminal, against a paced local server.

Whole-process figures (utime+stime of the process tree from /proc/<pid>/stat, VmHWM and
VmRSS from /proc/<pid>/status), measured side by side in one run for three peers:

* rivulet (`.venv/bin/rivulet`, the TUI as users start it);
* a bare-Textual floor written here (`--floor-app`): one Markdown widget fed from the
  same SSE stream with httpx, pending deltas appended on a 60 Hz timer while streaming;
* Codex CLI, when its binary is there (`--codex PATH`, default under /work/peer/codex).

The streamed turn: a reasoning summary, an apply_patch call whose patch streams (a
`function` tool for rivulet on loopback, `custom` for Codex: the server answers whatever
the request offers), then realistic Markdown (prose, lists, a code block, a table) at a
fixed delta rate. Codex's concurrent title request gets a short answer.

Run: .venv/bin/python benchmarks/live_bench.py [--quick] [--codex PATH] [--only rivulet,floor]
     .venv/bin/python benchmarks/live_bench.py --profile out.prof   (rivulet under cProfile, 200/s)
Not a test and not in CI: the numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import shlex
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
DEFAULT_CODEX = Path("/work/peer/codex/node_modules/@openai/codex-linux-x64/vendor/"
                     "x86_64-unknown-linux-musl/bin/codex")
COLS, ROWS = 120, 40
CLK_TCK = os.sysconf("SC_CLK_TCK")
SETTLE_LIMIT = 120.0  # seconds a peer may take to finish drawing the 1 MB answer before idle is measured
# Typed characters whose arrival on screen is timed: never in the stream or any peer's UI.
PROBES = [chr(c) for c in [*range(0x0410, 0x0450), *range(0x03B1, 0x03CA), *range(0x0391, 0x03A2),
                           *range(0x0531, 0x0557), *range(0x0561, 0x0587)]]

# ---- the streamed content -------------------------------------------------------------

REASONING = ("**Planning the change**\n\nThe user wants a small file and an explanation. I will write the "
             "file with apply_patch first, then explain the stream lifecycle with a list, a code block and a "
             "table so that every kind of Markdown block shows up.")

MARKDOWN_BLOCKS = [
    "## How the stream is handled\n\nThe client reads server-sent events one by one. Each event carries a "
    "small piece of text, and the interface shows it as soon as a frame is due. Nothing is committed to "
    "history until the item is done, so an interrupted turn never leaves half an answer behind.\n\n",
    "Three things matter while text streams:\n\n- the cost of parsing each event, which should be small;\n"
    "- the cost of drawing, which grows with what changed on screen;\n- the cost of layout, which grows "
    "with the size of the transcript when the whole of it is measured again.\n\n",
    "```python\nasync def follow(stream, pane):\n    async for event in stream:\n        if event.kind == "
    "\"delta\":\n            pane.append(event.text)\n        elif event.kind == \"done\":\n            "
    "pane.commit()\n    return pane.text\n```\n\n",
    "| measure | unit | what it means |\n|---|---|---|\n| CPU | s per s | work per streamed second |\n"
    "| latency | ms | keystroke to screen |\n| memory | MB | resident set at peak |\n\n",
    "1. Open the response and show the status line.\n2. Stream the reasoning summary in its own pane.\n"
    "3. Stream the patch as a live diff, then apply it.\n4. Stream the answer, then commit it.\n\n",
    "A longer paragraph follows, with **bold** words, `inline code` and *emphasis*, because real answers "
    "mix them freely. The renderer has to find block boundaries as the text arrives, keep the finished "
    "blocks as they are, and only redraw the block that is still growing at the end of the message.\n\n",
]


def words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def markdown_deltas(n: int, size: int = 0) -> list[str]:
    """n deltas of realistic Markdown (word-sized, or about `size` characters each)."""
    out: list[str] = []
    i = 0
    while len(out) < n:
        block = MARKDOWN_BLOCKS[i % len(MARKDOWN_BLOCKS)]
        i += 1
        if size:
            out.extend(block[j:j + size] for j in range(0, len(block), size))
        else:
            out.extend(words(block))
    return out[:n]


def patch_text(name: str) -> str:
    body = "".join(f"+line {k} of the benchmark file, written through apply_patch\n" for k in range(24))
    return f"*** Begin Patch\n*** Add File: {name}\n{body}*** End Patch\n"


# ---- the paced SSE server ---------------------------------------------------------------

class Script:
    """One response's events, written to the socket as they are made (paced by the caller)."""

    def __init__(self, write) -> None:
        self.write = write
        self.rid = f"resp_{uuid.uuid4().hex[:20]}"
        self.seq = 0
        self.output: list[dict[str, Any]] = []

    def emit(self, type_: str, **fields: Any) -> None:
        ev = {"type": type_, "sequence_number": self.seq, **fields}
        self.seq += 1
        self.write(f"event: {type_}\ndata: {json.dumps(ev)}\n\n".encode())

    def start(self) -> None:
        resp = {"id": self.rid, "object": "response", "status": "in_progress", "model": "bench", "output": []}
        self.emit("response.created", response=resp)
        self.emit("response.in_progress", response=resp)

    def reasoning(self, text: str, pace) -> None:
        idx, iid = len(self.output), f"rs_{uuid.uuid4().hex[:20]}"
        self.emit("response.output_item.added", output_index=idx, item={"id": iid, "type": "reasoning", "summary": []})
        self.emit("response.reasoning_summary_part.added", item_id=iid, output_index=idx, summary_index=0,
                  part={"type": "summary_text", "text": ""})
        for w in words(text):
            pace()
            self.emit("response.reasoning_summary_text.delta", item_id=iid, output_index=idx, summary_index=0, delta=w)
        self.emit("response.reasoning_summary_text.done", item_id=iid, output_index=idx, summary_index=0, text=text)
        self.emit("response.reasoning_summary_part.done", item_id=iid, output_index=idx, summary_index=0,
                  part={"type": "summary_text", "text": text})
        item = {"id": iid, "type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}
        self.emit("response.output_item.done", output_index=idx, item=item)
        self.output.append(item)

    def tool_call(self, custom: bool, text: str, pace) -> None:
        kind, field, ev = (("custom_tool_call", "input", "custom_tool_call_input") if custom
                           else ("function_call", "arguments", "function_call_arguments"))
        payload = text if custom else json.dumps({"input": text})
        idx, iid = len(self.output), f"{'ctc' if custom else 'fc'}_{uuid.uuid4().hex[:20]}"
        base = {"id": iid, "type": kind, "call_id": f"call_{uuid.uuid4().hex[:16]}", "name": "apply_patch"}
        self.emit("response.output_item.added", output_index=idx, item={**base, field: "", "status": "in_progress"})
        for i in range(0, len(payload), 12):
            pace()
            self.emit(f"response.{ev}.delta", item_id=iid, output_index=idx, delta=payload[i:i + 12])
        self.emit(f"response.{ev}.done", item_id=iid, output_index=idx, **{field: payload})
        item = {**base, field: payload, "status": "completed"}
        self.emit("response.output_item.done", output_index=idx, item=item)
        self.output.append(item)

    def message(self, deltas: list[str], pace, on_first=None) -> None:
        idx, iid = len(self.output), f"msg_{uuid.uuid4().hex[:20]}"
        self.emit("response.output_item.added", output_index=idx,
                  item={"id": iid, "type": "message", "status": "in_progress", "role": "assistant", "content": []})
        self.emit("response.content_part.added", item_id=iid, output_index=idx, content_index=0,
                  part={"type": "output_text", "text": "", "annotations": []})
        if on_first:
            on_first()
        for d in deltas:
            pace()
            self.emit("response.output_text.delta", item_id=iid, output_index=idx, content_index=0, delta=d,
                      logprobs=[])
        text = "".join(deltas)
        self.emit("response.output_text.done", item_id=iid, output_index=idx, content_index=0, text=text, logprobs=[])
        part = {"type": "output_text", "text": text, "annotations": []}
        self.emit("response.content_part.done", item_id=iid, output_index=idx, content_index=0, part=part)
        item = {"id": iid, "type": "message", "status": "completed", "role": "assistant", "content": [part]}
        self.emit("response.output_item.done", output_index=idx, item=item)
        self.output.append(item)

    def finish(self) -> None:
        usage = {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 900,
                 "output_tokens_details": {"reasoning_tokens": 40}, "total_tokens": 2100}
        self.emit("response.completed", response={"id": self.rid, "object": "response", "status": "completed",
                                                  "model": "bench", "output": self.output, "usage": usage})


class Plan:
    """What the next turn streams; set by the driver before it presses Enter."""

    def __init__(self) -> None:
        self.rate = 200.0  # deltas per second
        self.deltas: list[str] = []
        self.turn = 0
        self.lock = threading.Lock()
        self.md_start = threading.Event()
        self.md_end = threading.Event()
        self.on_md_start = None  # called in the server thread just before the first Markdown delta
        self.on_md_end = None
        self.requests: list[str] = []

    def arm(self, rate: float, deltas: list[str], on_start=None, on_end=None) -> None:
        with self.lock:
            self.rate, self.deltas, self.turn = rate, deltas, self.turn + 1
            self.md_start.clear()
            self.md_end.clear()
            self.on_md_start, self.on_md_end = on_start, on_end


class Handler(BaseHTTPRequestHandler):
    server: BenchServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._json(200, {"object": "list", "data": [], "models": []})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "body is not JSON"}})
            return
        if not self.path.rstrip("/").endswith("/responses"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        self.server.stamp(json.dumps(request.get("input")))
        plan = self.server.plan
        tools = {t.get("name"): t.get("type") for t in request.get("tools") or [] if isinstance(t, dict)}
        inputs = request.get("input") or []
        inputs = [{"type": "message", "role": "user", "content": inputs}] if isinstance(inputs, str) else inputs
        last = inputs[-1] if inputs else {}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-store")
        self.send_header("connection", "close")
        self.end_headers()
        s = Script(self._write)
        rate = plan.rate
        t0 = time.monotonic()
        n = [0]

        def pace() -> None:  # a fixed schedule, so that a slow write does not lower the rate
            n[0] += 1
            wait = t0 + n[0] / rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)

        try:
            s.start()
            if "apply_patch" not in tools or "Do not answer the request" in json.dumps(last):
                # Codex's concurrent title request (it offers apply_patch too), or anything else: a short answer
                plan.requests.append("other")
                s.message(["Benchmark ", "turn"], lambda: None)
            elif str(last.get("type", "")).endswith("_call_output"):
                plan.requests.append("answer")
                s.message(plan.deltas, pace, on_first=self._md_started)
                if plan.on_md_end:
                    plan.on_md_end()
                plan.md_end.set()
            else:
                plan.requests.append("patch")
                s.reasoning(REASONING, pace)
                name = f"bench_{plan.turn}_{uuid.uuid4().hex[:6]}.txt"
                s.tool_call(tools["apply_patch"] == "custom", patch_text(name), pace)
            s.finish()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def _md_started(self) -> None:
        plan = self.server.plan
        if plan.on_md_start:
            plan.on_md_start()
        plan.md_start.set()

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class BenchServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)  # loopback only, a free port
        self.plan = Plan()
        self.watched: dict[str, threading.Event] = {}  # a marker a request's input will carry
        self.marks: dict[str, float] = {}  # marker -> when the first request with it came
        threading.Thread(target=self.serve_forever, name="bench-server", daemon=True).start()

    def watch(self, marker: str) -> threading.Event:
        self.watched[marker] = threading.Event()
        return self.watched[marker]

    def stamp(self, text: str) -> None:
        """A request came: the time, for each watched marker its input carries."""
        now = time.monotonic()
        for marker, seen in list(self.watched.items()):
            if marker in text and not seen.is_set():
                self.marks[marker] = now
                seen.set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


# ---- /proc figures --------------------------------------------------------------------

def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2:].split()  # fields from 3 (state) on


def tree(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            f = _stat(int(entry))
            if f:
                parents.setdefault(int(f[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(parents.get(p, []))
    return out


def cpu_seconds(pid: int) -> float:
    """utime+stime of the process tree (and of its reaped children)."""
    total = 0
    for p in tree(pid):
        f = _stat(p)
        if f:
            total += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])  # utime stime cutime cstime
    return total / CLK_TCK


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmHWM, VmRSS) summed over the process tree, in MB."""
    hwm = rss = 0
    for p in tree(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                rss += int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm += int(line.split()[1])
    return hwm / 1024, rss / 1024


# ---- a program in a pseudo-terminal ---------------------------------------------------

ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\|\x1b.")


class PtyProc:
    """A program in a 120x40 pty; a thread drains its output, answers terminal queries, times probes."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.t0 = self.last_write = time.monotonic()
        self.buf = bytearray()
        self.cond = threading.Condition()
        self.closed = False
        self.waits: dict[bytes, list[Any]] = {}  # needle -> [sent at, offset, seen at]
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.5)
                if not r:
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            now = time.monotonic()
            if not data:
                with self.cond:
                    self.closed = True
                    self.cond.notify_all()
                return
            self._answer_queries(data)
            with self.cond:
                start = len(self.buf)
                self.buf += data
                for needle, w in self.waits.items():
                    if w[2] is None and self.buf.find(needle, max(w[1], start - len(needle))) >= 0:
                        w[2] = now
                self.cond.notify_all()

    def _answer_queries(self, data: bytes) -> None:
        # Codex (crossterm) asks the terminal where the cursor is and what it supports; answer as xterm.
        try:
            if b"\x1b[6n" in data:
                os.write(self.fd, b"\x1b[1;1R")
            if b"\x1b[c" in data or b"\x1b[0c" in data:
                os.write(self.fd, b"\x1b[?62;22c")
            for osc in (b"10", b"11"):
                if b"\x1b]" + osc + b";?" in data:
                    colour = b";rgb:ffff/ffff/ffff" if osc == b"10" else b";rgb:0000/0000/0000"
                    os.write(self.fd, b"\x1b]" + osc + colour + b"\x1b\\")
        except OSError:
            pass

    def text(self) -> str:
        with self.cond:
            return ANSI.sub(b"", bytes(self.buf)).decode("utf-8", "replace")

    def wait_text(self, pattern: str, timeout: float) -> float | None:
        """Seconds since launch when `pattern` (a regex) first shows in the output, or None."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.closed:
            if rx.search(self.text()):
                return time.monotonic() - self.t0
            time.sleep(0.01)
        return None

    def write(self, data: str | bytes) -> None:
        self.last_write = time.monotonic()
        os.write(self.fd, data.encode() if isinstance(data, str) else data)

    def probe(self, char: str) -> None:
        """Type `char` and remember when, to time its arrival on screen."""
        needle = char.encode()
        with self.cond:
            self.waits[needle] = [time.monotonic(), len(self.buf), None]
        self.write(needle)

    def latencies(self) -> list[float]:
        with self.cond:
            out = [w[2] - w[0] for w in self.waits.values() if w[2] is not None]
            missed = sum(1 for w in self.waits.values() if w[2] is None)
            self.waits.clear()
        return out + [float("inf")] * missed

    def unseen(self, chars: list[str]) -> list[str]:
        with self.cond:
            return [c for c in chars if c.encode() not in self.buf]

    def alive(self) -> bool:
        try:
            return os.waitpid(self.pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def stop(self, keys: list[bytes]) -> None:
        # Codex's app-server daemon detaches when the TUI exits: remember the tree to end it too.
        family = {q: _cmdline(q) for q in tree(self.pid) if q != self.pid}
        for k in keys:
            if not self.alive():
                break
            self.write(k)
            time.sleep(0.4)
        deadline = time.monotonic() + 3
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)
        for q, cmd in family.items():
            if cmd and _cmdline(q) == cmd:  # still the same process, not a reused pid
                try:
                    os.kill(q, signal.SIGKILL)
                except OSError:
                    pass


class ScreenPty(PtyProc):
    """A pty whose output also feeds a terminal emulator (pyte), for a peer that draws by
    cell diffs (Codex: ratatui writes only the cells that changed, so a line's text is never
    in the output whole). `expect` then looks at the emulated screen."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
        import pyte  # benchmarks only: the `bench` extra (scripts/setup --with-peers)

        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.watches: list[tuple[str, list[Any]]] = []
        super().__init__(argv, env, cwd)

    def _answer_queries(self, data: bytes) -> None:  # called by the drain thread for every read
        super()._answer_queries(data)
        self.stream.feed(data)
        if self.watches:
            shown, now = "\n".join(self.screen.display), time.monotonic()
            for text, w in self.watches:
                if w[2] is None and text in shown:
                    w[2] = now


def spawn(peer: Peer, ws: Path) -> PtyProc:
    """The peer in a pty: Codex's output through a terminal emulator (see ScreenPty)."""
    kind = ScreenPty if isinstance(peer, Codex) else PtyProc
    return kind(peer.argv(), peer.env(), str(ws))


def expect(proc: PtyProc, needle: str) -> list[Any]:
    """Watch for `needle` in the output from now on (the drain thread stamps it): cheap even
    when the output is megabytes, unlike a regex over the whole screen text, and no polling
    beside the peer."""
    w = [time.monotonic(), len(proc.buf), None]
    with proc.cond:
        if isinstance(proc, ScreenPty):
            proc.watches.append((needle, w))
        else:
            proc.waits[needle.encode()] = w
    return w


def unwatch(proc: PtyProc, needle: str) -> None:
    """Stop watching `needle`: a PtyProc's watches are also its typed probes."""
    with proc.cond:
        if not isinstance(proc, ScreenPty):
            proc.waits.pop(needle.encode(), None)


def wait_seen(proc: PtyProc, w: list[Any], timeout: float) -> float | None:
    """The time the watched needle showed (monotonic), or None after `timeout`."""
    deadline = time.monotonic() + timeout
    with proc.cond:
        while w[2] is None and not proc.closed and time.monotonic() < deadline:
            proc.cond.wait(0.2)
    return w[2]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


# ---- the peers ---------------------------------------------------------------------

class Peer:
    name = ""
    ready = ""  # a regex for the composer/first frame in the screen text
    quit_keys: ClassVar[list[bytes]] = [b"\x11"]

    def argv(self) -> list[str]:
        raise NotImplementedError

    def env(self) -> dict[str, str]:
        return dict(BASE_ENV)

    def help_argv(self) -> list[list[str]]:
        return []


BASE_ENV = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "RIVULET_API_KEY", "OPENAI_BASE_URL")}
BASE_ENV.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})


class Rivulet(Peer):
    name = "rivulet"
    extra_env: ClassVar[dict[str, str]] = {}
    ready = r"Send"  # the composer's binding in the footer: drawn once the composer has focus

    def __init__(self, tmp: Path, base_url: str, extra: list[str] | None = None, prefix: list[str] | None = None):
        self.tmp, self.base_url, self.extra, self.prefix = tmp, base_url, extra or [], prefix
        cfg = tmp / "rivulet.toml"
        cfg.write_text(f'base_url = "{base_url}"\nmodel = "bench-model"\napproval = "never-ask"\n'
                       'transport = "sse"\npatch_tool = "function"\nmax_retries = 0\n')
        (tmp / "sessions").mkdir(exist_ok=True)

    def env(self) -> dict[str, str]:
        env = super().env()
        env.update(self.extra_env)
        env.update({"RIVULET_CONFIG": str(self.tmp / "rivulet.toml"),
                    "RIVULET_SESSIONS_DIR": str(self.tmp / "sessions"), "HOME": str(self.tmp / "home")})
        return env

    def argv(self) -> list[str]:
        base = self.prefix or [str(VENV_BIN / "rivulet")]
        return [*base, "--workspace", str(self.tmp / "ws"), *self.extra]

    def help_argv(self) -> list[list[str]]:
        return [[str(VENV_BIN / "rivulet"), "--help"], [str(VENV_BIN / "rivulet"), "--version"]]


class Floor(Peer):
    name = "floor"
    ready = r"floor-ready"

    def __init__(self, base_url: str, preload: Path | None = None):
        self.base_url, self.preload = base_url, preload

    def argv(self) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "--floor-app", self.base_url] + \
            (["--floor-preload", str(self.preload)] if self.preload else [])

    def help_argv(self) -> list[list[str]]:
        return [[sys.executable, "-c", "pass"]]  # the interpreter's own start: the floor for any Python CLI


class Codex(Peer):
    name = "codex"
    ready = r"for shortcuts"
    quit_keys: ClassVar[list[bytes]] = [b"\x03", b"\x03", b"\x04"]

    def __init__(self, binary: Path, tmp: Path, base_url: str):
        self.binary, self.home = binary, tmp / "codexhome"
        self.home.mkdir(exist_ok=True)
        ws = tmp / "ws"
        # gpt-5.5 offers apply_patch as a plain custom tool (gpt-6 models use code mode)
        (self.home / "config.toml").write_text(f"""model = "gpt-5.5"
model_provider = "local"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
[analytics]
enabled = false
[feedback]
enabled = false
[history]
persistence = "none"
[model_providers.local]
name = "local"
base_url = "{base_url}"
wire_api = "responses"
[notice.model_migrations]
"gpt-5.5" = "gpt-6-sol"  # the upgrade prompt counts as seen
[features]
plugins = false
remote_plugin = false
apps = false
[projects."{ws}"]
trust_level = "trusted"
""")

    def env(self) -> dict[str, str]:
        env = super().env()
        env["CODEX_HOME"] = str(self.home)
        return env

    def argv(self) -> list[str]:
        return [str(self.binary)]

    def help_argv(self) -> list[list[str]]:
        return [[str(self.binary), "--help"], [str(self.binary), "--version"]]


# ---- the measurements ------------------------------------------------------------------

class Run:
    """One peer's session in the pty: launch, idle, typing, streamed turns, memory."""

    def __init__(self, peer: Peer, server: BenchServer, ws: Path, quick: bool, log) -> None:
        self.peer, self.server, self.ws, self.quick, self.log = peer, server, ws, quick, log
        self.r: dict[str, Any] = {}
        self.probes = list(PROBES)
        self.ended_at = 0.0  # when the server wrote the last turn's last Markdown delta

    def go(self) -> dict[str, Any]:
        p = self.proc = spawn(self.peer, self.ws)
        try:
            composer = expect(p, self.peer.ready)
            if wait_seen(p, composer, 30) is None:
                self.log(f"  {self.peer.name}: the composer never showed; screen: {p.text()[-600:]!r}")
                return self.r
            unwatch(p, self.peer.ready)  # (the watches are the typed probes' table too)
            self.r["launch"] = composer[2] - p.t0
            self.r["quiet"] = self.wait_quiet()  # start-up work done (Codex keeps loading after drawing)
            if self.r["quiet"] is not None:
                self.idle()
            self.typing_latency("lat_idle", 12 if self.quick else 30)
            n = 400 if self.quick else 1000
            self.turn("cpu50", 50, markdown_deltas(n // 4 if self.quick else n // 2))
            self.turn("cpu200", 200, markdown_deltas(n * 2))
            self.turn("cpu200_typing", 200, markdown_deltas(n * 2), typing=True)
            self.turn("mb1", 4000, markdown_deltas(4000, 256), settle=0.0)
            # Idle again, once the 1 MB answer is drawn (a peer may render it for a minute
            # after it streamed: that is not idle) and a blinking cursor would have stopped
            # (GTK's default: 10 s after the last key): what an untouched chat costs.
            quiet = self.wait_quiet(limit=SETTLE_LIMIT)
            if quiet is None:
                c0, t0 = cpu_seconds(p.pid), time.monotonic()
                time.sleep(1.0)
                busy = 100 * (cpu_seconds(p.pid) - c0) / (time.monotonic() - t0)
                self.r["idle_late_busy"] = f"still {busy:.0f} % of a core {SETTLE_LIMIT:.0f} s after the 1 MB answer"
            else:
                self.r["mb1_settle"] = p.t0 + quiet - self.ended_at  # from the server's last write
                time.sleep(max(0.0, 11.0 - (time.monotonic() - self.proc.last_write)))
                self.idle("idle_late")
        finally:
            self.r["mem"] = memory_mb(p.pid) if p.alive() else None
            p.stop(self.peer.quit_keys)
        return self.r

    def wait_quiet(self, limit: float = 20.0) -> float | None:
        """Seconds since launch until two 0.5 s windows in a row use under 10 % of a core,
        or None if that did not happen within `limit` seconds."""
        deadline, calm = time.monotonic() + limit, 0
        while time.monotonic() < deadline and calm < 2:
            c0 = cpu_seconds(self.proc.pid)
            time.sleep(0.5)
            calm = calm + 1 if cpu_seconds(self.proc.pid) - c0 < 0.05 else 0
        return time.monotonic() - self.proc.t0 if calm >= 2 else None

    def idle(self, key: str = "idle") -> None:
        secs = 4.0 if self.quick else 10.0
        c0, t0 = cpu_seconds(self.proc.pid), time.monotonic()
        time.sleep(secs)
        self.r[key] = (cpu_seconds(self.proc.pid) - c0) / (time.monotonic() - t0)

    def _next_probe(self) -> str:
        while self.probes:
            c = self.probes.pop(0)
            if self.proc.unseen([c]):
                return c
        raise RuntimeError("out of probe characters")

    def typing_latency(self, key: str, count: int) -> None:
        for _ in range(count):
            self.proc.probe(self._next_probe())
            time.sleep(0.1)
        time.sleep(0.5)
        self.r[key] = self.proc.latencies()
        self.proc.write(b"\x7f" * count)  # empty the composer again
        time.sleep(0.5)

    def turn(self, key: str, rate: float, deltas: list[str], typing: bool = False, settle: float = 1.5,
             also_at_start=None) -> None:
        plan, pid = self.server.plan, self.proc.pid
        marks: dict[str, float] = {}

        def start() -> None:
            marks["c0"], marks["t0"] = cpu_seconds(pid), time.monotonic()
            if also_at_start:
                also_at_start()

        def end() -> None:
            marks["c1"], marks["t1"] = cpu_seconds(pid), time.monotonic()

        plan.arm(rate, deltas, start, end)
        self.wait_quiet()  # the previous turn fully drawn and committed: Enter would not start a new one before
        c_turn = cpu_seconds(pid)
        asked = len(plan.requests)
        self.proc.write("explain the stream and write a file")
        time.sleep(0.3)
        self.proc.write(b"\r")
        for _ in range(3):  # a busy app may have missed the Enter: press it again while no request came
            deadline = time.monotonic() + 10
            while len(plan.requests) == asked and time.monotonic() < deadline:
                time.sleep(0.05)
            if len(plan.requests) > asked:
                break
            self.proc.write(b"\r")
        if not plan.md_start.wait(60):
            self.log(f"  {self.peer.name} {key}: the answer never started (requests: {plan.requests[-4:]})")
            self.r[key] = None
            return
        typed = 0
        if typing:
            while not plan.md_end.is_set():
                self.proc.probe(self._next_probe())
                typed += 1
                plan.md_end.wait(0.1)
        plan.md_end.wait(120)
        time.sleep(settle)
        self.wait_quiet()
        streamed = marks["t1"] - marks["t0"]
        self.ended_at = marks["t1"]
        self.r[key] = {"cpu_per_s": (marks["c1"] - marks["c0"]) / streamed, "streamed_s": streamed,
                       "turn_cpu": cpu_seconds(pid) - c_turn, "deltas": len(deltas)}
        if typing:
            self.r["lat_stream"] = self.proc.latencies()
            self.proc.write(b"\x7f" * typed)
            time.sleep(0.5)
        if key == "mb1":
            self.r["mem_1mb"] = memory_mb(pid)
        self.log(f"  {self.peer.name} {key}: {self.r[key]['cpu_per_s']:.3f} CPU s/s over {streamed:.1f} s")


def launch_once(peer: Peer, ws: Path, server: BenchServer) -> dict[str, float | None]:
    """One fresh start: spawn to the composer (floor: its first frame), and to the request
    of a prompt typed and sent the moment it showed (a composer that only looks ready, its
    start-up still under way, takes the keys but sends later). Killed once the request came."""
    marker = f"launch-{uuid.uuid4().hex[:8]}"
    asked = server.watch(marker)
    p = spawn(peer, ws)
    out: dict[str, float | None] = {"composer": None, "request": None}
    try:
        composer = expect(p, peer.ready)
        if wait_seen(p, composer, 30) is None:
            return out
        out["composer"] = composer[2] - p.t0
        p.write(marker)
        time.sleep(0.05)  # typed, then sent: a paste's Enter would be a newline
        p.write(b"\r")
        if asked.wait(30):
            out["request"] = server.marks[marker] - p.t0
    finally:
        family = tree(p.pid)
        for q in family:
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass
        os.waitpid(p.pid, 0)
        os.close(p.fd)
    return out


def launches(peers: list[tuple[Peer, Path]], server: BenchServer, runs: int) -> dict[str, dict[str, Any]]:
    """`runs` fresh starts of each peer, the peers taking turns (each in turn first): the
    median time to the composer and to the first request, and each start's figures."""
    starts: dict[str, list[dict[str, float | None]]] = {peer.name: [] for peer, _ in peers}
    for n in range(runs):
        k = n % len(peers)
        for peer, ws in peers[k:] + peers[:k]:
            starts[peer.name].append(launch_once(peer, ws, server))
            time.sleep(0.3)
    out: dict[str, dict[str, Any]] = {}
    for name, got in starts.items():
        composer = [s["composer"] for s in got if s["composer"] is not None]
        request = [s["request"] for s in got if s["request"] is not None]
        out[name] = {"launch": statistics.median(composer) if len(composer) == len(got) else None,
                     "launch_request": statistics.median(request) if len(request) == len(got) else None,
                     "launches": got}
    return out


def merge_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One peer's sessions as one: the median of each figure, the keys' latencies pooled."""
    out: dict[str, Any] = {}
    for key in {k for r in runs for k in r}:
        values = [r[key] for r in runs if r.get(key) is not None]
        if not values:
            out[key] = None
        elif key.startswith("lat_"):
            out[key] = [v for got in values for v in got]
        elif all(isinstance(v, (int, float)) for v in values):
            out[key] = statistics.median(values)
        elif all(isinstance(v, dict) for v in values):
            out[key] = merge_runs(values)
        elif all(isinstance(v, (list, tuple)) for v in values):  # (peak, settled) memory
            out[key] = [statistics.median(col) for col in zip(*values, strict=True)]
        else:
            out[key] = values[0]
    return out


def wall_median(argv: list[str], env: dict[str, str], runs: int) -> tuple[float | None, str]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        try:
            done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, str(exc)
        times.append(time.perf_counter() - t0)
        if done.returncode != 0:
            return None, (done.stderr.decode(errors="replace").strip().splitlines()
                          or [f"exit {done.returncode}"])[-1]
    return statistics.median(times), ""


def write_long_session(path: Path, turns: int, cwd: str) -> str:
    """A rivulet session file of `turns` question/answer pairs (JSONL, as core/store/session.py reads it)."""
    from rivulet.core.store.session import FORMAT

    answer = "".join(MARKDOWN_BLOCKS)  # ~2 kB of Markdown per answer
    now = time.time() - turns
    sid = "bench-200-turns"
    with open(path / f"{sid}.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "session", "format": FORMAT, "id": sid, "created": now, "cwd": cwd,
                            "model": "bench-model", "base_url": "http://127.0.0.1/v1"}) + "\n")
        seq = 0
        for n in range(turns):
            f.write(json.dumps({"type": "turn", "turn_id": n + 1, "event": "started", "prompt": f"question {n}",
                                "time": now + n}) + "\n")
            question = [{"type": "input_text", "text": f"question {n}"}]
            for item in ({"type": "message", "role": "user", "content": question},
                         {"id": f"msg_{n}", "type": "message", "role": "assistant", "status": "completed",
                          "content": [{"type": "output_text", "text": answer, "annotations": []}]}):
                f.write(json.dumps({"type": "item", "seq": seq, "key": f"k{seq}", "segment": f"req-{n}",
                                    "time": now + n, "item": item}) + "\n")
                seq += 1
            f.write(json.dumps({"type": "turn", "turn_id": n + 1, "event": "completed", "usage": None,
                                "time": now + n}) + "\n")
    (path / "floor-200.md").write_text("".join(f"**question {n}**\n\n{answer}" for n in range(turns)))
    return sid


def long_session(peer: Peer, ws: Path, log) -> dict[str, Any]:
    """Launch with 200 turns already there: time to ready, peak and settled memory."""
    p = PtyProc(peer.argv(), peer.env(), str(ws))
    try:
        ready = p.wait_text(peer.ready, 60)
        if ready is None:
            log(f"  {peer.name}: no composer within 60 s with 200 turns")
        time.sleep(3.0)
        hwm, _ = memory_mb(p.pid)
        time.sleep(2.0)
        _, rss = memory_mb(p.pid)
        return {"launch": ready, "hwm": hwm, "rss": rss}
    finally:
        p.stop(peer.quit_keys)


# ---- the report ------------------------------------------------------------------------

def fmt(v: float | None, spec: str = ".3f", unit: str = "") -> str:
    if v is None:
        return "n/a"
    if v == float("inf"):
        return "missed"
    return f"{v:{spec}}{unit}"


def pct(values: list[float] | None, q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def rows_for(results: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, float | None], str]]:
    def g(name: str, *path: Any):
        v: Any = results.get(name)
        for k in path:
            if isinstance(v, dict):
                v = v.get(k)
            elif isinstance(v, (list, tuple)) and isinstance(k, int):
                v = v[k]
            else:
                return None
        return v

    rows = []

    def add(label: str, fn, spec: str) -> None:
        rows.append((label, {n: fn(n) for n in ("rivulet", "floor", "codex")}, spec))

    add("CPU s per streamed s, 50 deltas/s", lambda n: g(n, "cpu50", "cpu_per_s"), ".3f")
    add("CPU s per streamed s, 200 deltas/s", lambda n: g(n, "cpu200", "cpu_per_s"), ".3f")
    add("  same, typing a key every 100 ms", lambda n: g(n, "cpu200_typing", "cpu_per_s"), ".3f")
    add("CPU s, whole turn at 200/s (reasoning+patch+answer)", lambda n: g(n, "cpu200", "turn_cpu"), ".2f")
    add("CPU s per s, 1 MB answer (4,000 deltas at 4,000/s)", lambda n: g(n, "mb1", "cpu_per_s"), ".3f")
    add("idle CPU, % of one core", lambda n: None if g(n, "idle") is None else 100 * g(n, "idle"), ".2f")
    add("idle CPU once the 1 MB answer is drawn, 11 s after the last key, %",
        lambda n: None if g(n, "idle_late") is None else 100 * g(n, "idle_late"), ".2f")
    add("  the 1 MB answer: end of its stream to quiet, s", lambda n: g(n, "mb1_settle"), ".1f")
    add("keystroke to screen, idle, median ms", lambda n: _ms(pct(g(n, "lat_idle"), 0.5)), ".1f")
    add("keystroke to screen, idle, p90 ms", lambda n: _ms(pct(g(n, "lat_idle"), 0.9)), ".1f")
    add("keystroke to screen, streaming 200/s, median ms", lambda n: _ms(pct(g(n, "lat_stream"), 0.5)), ".1f")
    add("keystroke to screen, streaming 200/s, p90 ms", lambda n: _ms(pct(g(n, "lat_stream"), 0.9)), ".1f")
    add("launch to composer (floor: first frame), s, median of 7 starts (--quick: 3), alternated",
        lambda n: g(n, "launch"), ".3f")
    add("launch to the first request of a prompt sent as the composer shows, s", lambda n: g(n, "launch_request"),
        ".3f")
    add("launch to quiet (start-up CPU done), s", lambda n: g(n, "quiet"), ".2f")
    add("--help wall, s (floor: python -c pass)", lambda n: g(n, "help"), ".3f")
    add("--version wall, s", lambda n: g(n, "version"), ".3f")
    add("peak RSS (VmHWM) after 1 MB answer, MB", lambda n: g(n, "mem_1mb", 0), ".1f")
    add("settled RSS after 1 MB answer, MB", lambda n: g(n, "mem", 1), ".1f")
    add("200 turns resumed: launch to composer, s", lambda n: g(n, "long", "launch"), ".3f")
    add("200 turns resumed: peak RSS, MB", lambda n: g(n, "long", "hwm"), ".1f")
    add("200 turns resumed: settled RSS, MB", lambda n: g(n, "long", "rss"), ".1f")
    return rows


def _ms(v: float | None) -> float | None:
    return None if v is None else (v if v == float("inf") else v * 1000)


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0 or float("inf") in (a, b):
        return "n/a"
    return f"{a / b:.2f}x"


def report(results: dict[str, dict[str, Any]], notes: list[str]) -> str:
    lines = ["| measure | rivulet | floor | Codex | rivulet/floor | rivulet/Codex |", "|---|---|---|---|---|---|"]
    for label, vals, spec in rows_for(results):
        lines.append(f"| {label} | {fmt(vals['rivulet'], spec)} | {fmt(vals['floor'], spec)} | "
                     f"{fmt(vals['codex'], spec)} | {ratio(vals['rivulet'], vals['floor'])} | "
                     f"{ratio(vals['rivulet'], vals['codex'])} |")
    lines += ["", "Targets (issue 16):", ""]
    for text, ok in targets(results):
        lines.append(f"- {'MET    ' if ok else ('NOT MET' if ok is not None else 'n/a    ')} {text}")
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines)


def targets(results: dict[str, dict[str, Any]]) -> list[tuple[str, bool | None]]:
    rv, fl, cx = (results.get(n, {}) for n in ("rivulet", "floor", "codex"))

    def cpu(r):
        return (r.get("cpu200") or {}).get("cpu_per_s")

    def cmp(a, b, k):
        return None if a is None or b is None else a <= k * b

    out = [
        (f"streaming CPU at 200/s <= 1.5x Codex ({ratio(cpu(rv), cpu(cx))})", cmp(cpu(rv), cpu(cx), 1.5)),
        (f"streaming CPU at 200/s <= 1.2x the floor ({ratio(cpu(rv), cpu(fl))})", cmp(cpu(rv), cpu(fl), 1.2)),
        (f"launch to composer <= 1.3x the floor's first frame ({ratio(rv.get('launch'), fl.get('launch'))})",
         cmp(rv.get("launch"), fl.get("launch"), 1.3)),
        (f"--help <= 0.12 s ({fmt(rv.get('help'))} s)", cmp(rv.get("help"), 0.12, 1)),
        (f"--version <= 0.12 s ({fmt(rv.get('version'))} s)", cmp(rv.get("version"), 0.12, 1)),
        (f"idle CPU < 0.5 % of a core ({fmt(None if rv.get('idle') is None else 100 * rv['idle'], '.2f')} %)",
         None if rv.get("idle") is None else 100 * rv["idle"] < 0.5),
        (f"idle CPU < 0.5 % of a core, 11 s after the last key "
         f"({fmt(None if rv.get('idle_late') is None else 100 * rv['idle_late'], '.2f')} %)",
         None if rv.get("idle_late") is None else 100 * rv["idle_late"] < 0.5),
    ]
    li, ls = pct(rv.get("lat_idle"), 0.5), pct(rv.get("lat_stream"), 0.5)
    # "no worse": the streaming median within one 60 Hz frame (17 ms) of the idle one
    out.append((f"keystroke to screen while streaming no worse than idle (median {fmt(_ms(ls), '.1f')} ms vs "
                f"{fmt(_ms(li), '.1f')} ms; allowed: one 60 Hz frame more)",
                None if li is None or ls is None else ls <= li + 1 / 60))
    return out


# ---- the floor app (run in its own process by --floor-app) ------------------------------

def floor_app(base_url: str, preload: str | None) -> None:
    import asyncio

    import httpx
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Input, Markdown, Static

    class FloorApp(App[None]):
        CSS = "Markdown { height: auto; } Input { dock: bottom; }"
        BINDINGS: ClassVar = [("ctrl+q", "quit", "Quit")]

        def compose(self) -> ComposeResult:
            yield Static("floor-ready", id="banner")
            with VerticalScroll():
                yield Markdown(Path(preload).read_text() if preload else "")
            yield Input(placeholder="prompt")

        def on_mount(self) -> None:
            self.pending: list[str] = []
            self.query_one(Input).focus()

        def on_input_submitted(self, event: Input.Submitted) -> None:
            event.input.value = ""
            self.run_worker(self.turn(event.value))

        async def frame(self) -> None:
            if self.pending:
                text, self.pending = "".join(self.pending), []
                await self.query_one(Markdown).append(text)
                self.query_one(VerticalScroll).scroll_end(animate=False)

        async def turn(self, prompt: str) -> None:
            timer = self.set_interval(1 / 60, self.frame)  # only while streaming
            body: dict[str, Any] = {"model": "bench", "stream": True, "input": [{"role": "user", "content": prompt}],
                                    "tools": [{"type": "function", "name": "apply_patch"}]}
            async with httpx.AsyncClient(timeout=120) as client:
                for _ in range(4):
                    call = None
                    async with client.stream("POST", base_url + "/responses", json=body) as resp:
                        async for line in resp.aiter_lines():
                            if not line.startswith("data: "):
                                continue
                            ev = json.loads(line[6:])
                            if ev["type"] == "response.output_text.delta":
                                self.pending.append(ev["delta"])
                            elif ev["type"] == "response.output_item.done" and ev["item"]["type"] == "function_call":
                                call = ev["item"]
                    if call is None:
                        break
                    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "ok"}
                    body["input"] += [call, output]
            await asyncio.sleep(0.1)
            await self.frame()
            timer.stop()

    FloorApp().run()


# ---- main ------------------------------------------------------------------------------

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="shorter runs (about a minute)")
    ap.add_argument("--codex", type=Path, default=DEFAULT_CODEX, help="the Codex CLI binary")
    ap.add_argument("--only", default="rivulet,floor,codex", help="peers to run, comma-separated")
    ap.add_argument("--rivulet", default="", help="the rivulet command (default: this checkout's .venv/bin/rivulet), "
                    "e.g. /work/main/.venv/bin/rivulet to compare builds side by side")
    ap.add_argument("--repeat", type=int, default=1, help="sessions of each peer, alternated (medians; keys pooled)")
    ap.add_argument("--profile", help="run only rivulet's 200/s turn under cProfile, writing this file")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for rivulet only (to try a lever, e.g. TEXTUAL_FPS=30)")
    ap.add_argument("--frame-hz", type=float, help="rivulet's text commit tick, its stream_fps setting "
                    "(RIVULET_STREAM_FPS)")
    ap.add_argument("--floor-app", help=argparse.SUPPRESS)
    ap.add_argument("--floor-preload", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.floor_app:
        floor_app(args.floor_app, args.floor_preload)
        return
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    tmp = Path(tempfile.mkdtemp(prefix="live_bench."))
    Rivulet.extra_env = dict(e.split("=", 1) for e in args.env)
    if args.frame_hz:
        Rivulet.extra_env["RIVULET_STREAM_FPS"] = f"{args.frame_hz:g}"  # the stream_fps setting
    # pip writes the bytecode of an installed wheel; the editable checkout has none when
    # PYTHONDONTWRITEBYTECODE is set (as here), and compiling ~100 modules at each start
    # would be measured as launch time no user pays.
    subprocess.run([str(VENV_BIN / "python"), "-m", "compileall", "-q", *(str(ROOT / d) for d in
                    ("app", "core", "widgets", "themes"))], check=True, stdout=subprocess.DEVNULL)
    server = BenchServer()
    notes = [f"rivulet ran with {' '.join(args.env)}"] if args.env else []
    notes += [f"rivulet's stream_fps set to {args.frame_hz:g}"] if args.frame_hz else []
    notes += [f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; other agents may be "
             "running: compare ratios, not seconds"]
    try:
        if args.profile:
            return profile(args.profile, tmp, server, log)
        peers: list[Peer] = []
        only = set(args.only.split(","))
        for name in ("rivulet", "floor", "codex"):
            if name not in only:
                continue
            sub = tmp / name
            (sub / "ws").mkdir(parents=True)
            (sub / "home").mkdir()
            if name == "rivulet":
                peers.append(Rivulet(sub, server.base_url, prefix=shlex.split(args.rivulet) if args.rivulet else None))
            elif name == "floor":
                peers.append(Floor(server.base_url))
            elif args.codex.is_file() and os.access(args.codex, os.X_OK):
                peers.append(Codex(args.codex, sub, server.base_url))
            else:
                notes.append(f"Codex CLI not found at {args.codex}: its column is empty "
                             "(npm install --prefix /work/peer/codex @openai/codex@0.169.0)")
        ws_of = {peer.name: tmp / peer.name / "ws" for peer in peers}
        streamed: dict[str, list[dict[str, Any]]] = {peer.name: [] for peer in peers}
        for rep in range(args.repeat):
            # Each repetition runs every peer's session once, each peer in turn first, so
            # that the machine's drift over minutes falls on all of them alike.
            k = rep % len(peers)
            for peer in peers[k:] + peers[:k]:
                log(f"{peer.name}: streaming runs" + (f" ({rep + 1}/{args.repeat})" if args.repeat > 1 else ""))
                streamed[peer.name].append(Run(peer, server, ws_of[peer.name], args.quick, log).go())
        results: dict[str, dict[str, Any]] = {name: merge_runs(runs) for name, runs in streamed.items()}
        for name, runs in streamed.items():
            results[name]["launch_first"] = runs[0].get("launch")
            busy = [r["idle_late_busy"] for r in runs if r.get("idle_late_busy")]
            notes += [f"{name}: idle after the 1 MB answer not measured: {b}" for b in busy]
        runs = 3 if args.quick else 7
        log(f"launches: {runs} of each peer, alternated")
        for name, got in launches([(peer, ws_of[peer.name]) for peer in peers], server, runs).items():
            results[name].update(got)
        for n in range(runs):  # --help and --version, the peers alternated too
            for peer in peers[n % len(peers):] + peers[:n % len(peers)]:
                for argv, key in zip(peer.help_argv(), ("help", "version"), strict=False):  # the floor: no --version
                    value, err = wall_median(argv, peer.env(), 1)
                    results[peer.name].setdefault(f"{key}_runs", []).append(value)
                    if err:
                        notes.append(f"{peer.name} {' '.join(Path(a).name for a in argv[-2:])}: failed ({err[:120]})")
        for name in results:
            for key in ("help", "version"):
                got = results[name].pop(f"{key}_runs", None)
                results[name][key] = statistics.median(got) if got and None not in got else None
        # 200 turns: rivulet resumes a generated session file; the floor starts with the same text.
        if {"rivulet", "floor"} & only:
            sessions = tmp / "rivulet" / "sessions" if "rivulet" in only else tmp
            sessions.mkdir(parents=True, exist_ok=True)
            sid = write_long_session(sessions, 200, str(tmp / "rivulet" / "ws"))
            for peer in peers:
                if isinstance(peer, Rivulet):
                    log("rivulet: 200 turns")
                    results["rivulet"]["long"] = long_session(Rivulet(tmp / "rivulet", server.base_url,
                                                                      ["resume", sid]), tmp / "rivulet" / "ws", log)
                elif isinstance(peer, Floor):
                    log("floor: 200 turns")
                    results["floor"]["long"] = long_session(Floor(server.base_url, sessions / "floor-200.md"),
                                                            tmp / "floor" / "ws", log)
            notes.append("200 turns: rivulet resumes a generated session file (200 prompts, 200 answers of ~2 kB of "
                         "Markdown); the floor starts with the same text in its one Markdown widget; Codex: not run")
        if "codex" in results:
            notes.append("Codex offers apply_patch as a custom (freeform) tool; the server streams it as "
                         "custom_tool_call input, the same patch text")
        print(report(results, notes))
        (tmp / "results.json").write_text(json.dumps(results, indent=1, default=str))
        log(f"raw results: {tmp / 'results.json'}")
    finally:
        server.shutdown()


def profile(out: str, tmp: Path, server: BenchServer, log) -> None:
    """rivulet streaming one 200/s answer, profiled: py-spy over the answer's 10 s when `out`
    ends in .txt (collapsed stacks; py-spy from PyPI), else cProfile over the whole session
    (python -m cProfile -o out -m rivulet.app: no change to the app)."""
    sub = tmp / "rivulet"
    (sub / "ws").mkdir(parents=True)
    (sub / "home").mkdir()
    spy = out.endswith(".txt")
    prefix = None if spy else [str(VENV_BIN / "python"), "-m", "cProfile", "-o", str(Path(out).resolve()),
                               "-m", "rivulet.app"]
    peer = Rivulet(sub, server.base_url, prefix=prefix)
    run = Run(peer, server, sub / "ws", True, log)
    run.proc = p = PtyProc(peer.argv(), peer.env(), str(sub / "ws"))
    spies: list[subprocess.Popen] = []

    def attach() -> None:
        spies.append(subprocess.Popen([str(VENV_BIN / "py-spy"), "record", "--pid", str(p.pid), "--duration", "10",
                                       "--rate", "200", "--format", "raw", "--output", out],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))

    try:
        if p.wait_text(peer.ready, 60) is None:
            raise SystemExit("rivulet never showed its composer")
        run.wait_quiet()
        run.turn("cpu200", 200, markdown_deltas(2000), also_at_start=attach if spy else None)
        for s in spies:
            s.wait(30)
            if s.returncode:
                log(f"py-spy failed: {s.stderr.read().decode(errors='replace')[-300:]}")
    finally:
        p.stop([b"\x11"])
    log(f"profile written to {out}")


if __name__ == "__main__":
    main()
