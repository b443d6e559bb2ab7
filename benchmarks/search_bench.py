"""The sessions' search index (issue 40) at scale: 2,000 sessions of 50 turns, written by
rivulet's own session writer; the first build of the index, an incremental update after
one new turn (and one with nothing new), and a search for a common and a rare word,
against `grep -rl` over the same files. Side by side, in one run: read the ratios.

Targets: an incremental update <= 50 ms; a search <= 0.1x grep's time.

    .venv/bin/python benchmarks/search_bench.py [--sessions 2000] [--turns 50] [--repeat 5] [--dir DIR]

The sessions are written once into DIR (default: a folder under /tmp, kept for the next
run: `--dir` of it skips the writing) with the writer's fsync off (a benchmark's files
need not survive a power cut)."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rivulet.core import items as it
from rivulet.core.store.search_index import SearchIndex, index_path
from rivulet.core.store.session import SessionWriter
from rivulet.core.turn.history import History

COMMON, RARE = "function", "zanzibarquux"  # in every answer; in one session's one turn


def vocabulary(rng: random.Random, n: int = 5000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(n)]


def words(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choices(vocab, k=n))


def answer(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": "msg", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def write_turn(writer: SessionWriter, history: History, n: int, rng: random.Random, vocab: list[str],
               extra: str = "") -> None:
    prompt = words(rng, vocab, 15) + extra
    writer.turn_started(n, prompt)
    history.append(it.user_message(prompt), key=f"user-{n}")
    thought = f"**{words(rng, vocab, 3)}** {words(rng, vocab, 30)}"
    history.append({"type": "reasoning", "id": f"rs_{n}", "summary": [{"type": "summary_text", "text": thought}]})
    call_id = f"call_{n}"
    history.append({"type": "function_call", "id": f"fc_{n}", "call_id": call_id, "name": "shell",
                    "arguments": f'{{"command": ["grep", "-rn", "{rng.choice(vocab)}", "."]}}'})
    history.append({"type": "function_call_output", "call_id": call_id, "output": words(rng, vocab, 200)})
    history.append(answer(f"The {COMMON} {words(rng, vocab, 80)}"))
    writer.turn_ended(n, {"input_tokens": 1000, "output_tokens": 200}, "completed")


def synthesise(folder: Path, sessions: int, turns: int) -> None:
    rng = random.Random(40)
    vocab = vocabulary(rng)
    rare_at = sessions // 2
    started = time.perf_counter()
    for s in range(sessions):
        writer, _ = SessionWriter.create(model="gpt-x", base_url="https://api.example", cwd=f"/work/p{s % 20}",
                                         directory=folder, fsync=lambda fd: None)
        history = History(observers=[writer.observe])
        for n in range(1, turns + 1):
            write_turn(writer, history, n, rng, vocab, f" {RARE}" if s == rare_at and n == turns // 2 else "")
        writer.close()
        if s % 200 == 199:
            print(f"  written {s + 1} sessions ({time.perf_counter() - started:.0f} s)", file=sys.stderr)


def timed(fn: object, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def grep_time(folder: Path, word: str, repeat: int) -> float:
    def run() -> int:
        return subprocess.run(["grep", "-rl", "--include=*.jsonl", word, str(folder)], stdout=subprocess.DEVNULL,
                              check=False).returncode

    return timed(run, repeat)[0]


def cli_time(folder: Path, word: str, repeat: int) -> float:
    env = {**os.environ, "RIVULET_SESSIONS_DIR": str(folder), "RIVULET_CONFIG": os.devnull}

    def run() -> int:
        return subprocess.run([sys.executable, "-m", "rivulet.app", "sessions", "search", "--all", word],
                              stdout=subprocess.DEVNULL, env=env, check=False).returncode

    return timed(run, repeat)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", type=Path, help="the sessions' folder (written if empty)")
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.gettempdir()) / f"rivulet-search-bench-{args.sessions}x{args.turns}"
    folder.mkdir(parents=True, exist_ok=True)
    if not any(folder.glob("*.jsonl")):
        print(f"writing {args.sessions} sessions of {args.turns} turns into {folder}", file=sys.stderr)
        synthesise(folder, args.sessions, args.turns)
    files = sorted(folder.glob("*.jsonl"))
    size = sum(f.stat().st_size for f in files)
    load_before = os.getloadavg()

    for suffix in ("", "-wal", "-shm"):
        Path(f"{index_path(folder)}{suffix}").unlink(missing_ok=True)
    index = SearchIndex(folder)
    start, cpu = time.perf_counter(), time.process_time()
    built = index.update()
    build_wall, build_cpu = time.perf_counter() - start, time.process_time() - cpu
    index_size = index_path(folder).stat().st_size

    nothing, _ = timed(index.update, args.repeat)
    # One new turn in one session, written by the writer (reopened as a resume would), then the update.
    rng = random.Random(41)
    vocab = vocabulary(rng)
    incremental = []
    for n in range(args.repeat):
        target = files[n % len(files)]
        writer = SessionWriter(target, fsync=lambda fd: None)
        write_turn(writer, History(observers=[writer.observe]), args.turns + 1 + n, rng, vocab)
        writer.close()
        start = time.perf_counter()
        count = index.update()
        incremental.append(time.perf_counter() - start)
        assert count.files == 1 and count.items == 5, count

    rows = []
    for word in (COMMON, RARE):
        ours, hits = timed(lambda w=word: index.search(w, limit=20), args.repeat)  # type: ignore[misc]
        grep = grep_time(folder, word, args.repeat)
        cli = cli_time(folder, word, max(3, args.repeat // 2))
        rows.append((word, len(hits), ours, cli, grep))  # type: ignore[arg-type]
    index.close()
    load_after = os.getloadavg()

    print(f"\n{len(files)} sessions x {args.turns} turns ({built.items:,} items), {size / 1e6:.0f} MB of session "
          f"files; index {index_size / 1e6:.0f} MB")
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, on {os.cpu_count()} cores; "
          f"medians of {args.repeat}\n")
    print("| measure | time | target |")
    print("|---|---|---|")
    print(f"| first build | {build_wall:.1f} s wall, {build_cpu:.1f} s CPU | |")
    print(f"| update, nothing new ({len(files)} stats) | {nothing * 1e3:.1f} ms | |")
    print(f"| update after one new turn | {statistics.median(incremental) * 1e3:.1f} ms "
          f"(max {max(incremental) * 1e3:.1f}) | <= 50 ms |")
    print("\n| word | sessions shown | search (in process) | `rivulet sessions search` (process) | `grep -rl` "
          "| search / grep | process / grep |")
    print("|---|---|---|---|---|---|---|")
    for word, n, ours, cli, grep in rows:
        print(f"| {word} | {n} | {ours * 1e3:.1f} ms | {cli * 1e3:.0f} ms | {grep * 1e3:.0f} ms | "
              f"{ours / grep:.3f}x | {cli / grep:.2f}x |")
    if args.dir is None:
        print(f"\n(the sessions are kept in {folder}: rm -r it when done)", file=sys.stderr)


if __name__ == "__main__":
    shutil.which("grep") or sys.exit("grep is needed")
    main()
