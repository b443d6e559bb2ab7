"""The cost of a checkpoint on a 10,000-file workspace (issue 26): rivulet's design (a stat
walk plus a content-addressed copy of the files whose stat changed, core/checkpoints)
against a shadow git repository (its own GIT_DIR, the work tree the workspace, every
code-running setting off as in core/tools/safe_git.py, attributes neutralised).

Measured, wall and CPU (this process and its children), median of --repeat runs:
  first     the first checkpoint of the workspace (everything is read and kept)
  idle      a checkpoint when nothing changed (the walk before a turn, usually)
  turn      the walk after a turn that changed --touch files (what the turn pays)
  undo      putting those files back (rivulet: plan + restore; git: checkout of the files)
and the store's size on disk. Run:

    .venv/bin/python benchmarks/checkpoint_bench.py [--files 10000] [--touch 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rivulet.core.checkpoints import restore
from rivulet.core.checkpoints.store import CheckpointStore, WorkspaceSnapshot
from rivulet.core.tools.safe_git import OVERRIDES, git_env


def _workspace(root: Path, files: int) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    for n in range(200):
        (root / "build" / f"o{n}.o").write_bytes(os.urandom(512))
    for n in range(files):
        sub = root / "src" / f"pkg{n % 50}" / f"mod{n % 7}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"file{n}.py").write_text(f"# file {n}\n" + "x = 1\n" * (n % 300 + 20))


def _touch(root: Path, count: int, round_: int) -> list[Path]:
    out = sorted((root / "src").rglob("*.py"))[:count]
    for p in out:
        p.write_text(p.read_text() + f"# round {round_}\n")
    return out


def _cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    w, c = time.perf_counter(), _cpu()
    fn()
    return time.perf_counter() - w, _cpu() - c


def _du(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file())


# ---- rivulet's store --------------------------------------------------------------------------


def run_cas(ws: Path, data: Path, touch: int) -> dict[str, tuple[float, float]]:
    store = CheckpointStore(ws, data)
    out: dict[str, tuple[float, float]] = {}
    snap: list[WorkspaceSnapshot] = []

    def take() -> None:
        with store.locked():
            snap.append(store.snapshot())

    out["first"] = _timed(take)
    out["idle"] = _timed(take)
    _touch(ws, touch, 1)

    def after() -> None:
        with store.locked():
            a = store.snapshot()
            store.record("bench", 1, snap[-1], a, ["bench"])

    out["turn"] = _timed(after)

    def undo() -> None:
        with store.locked():
            p = restore.plan(store, restore.undoable(store, "bench"), "undo")
            assert not p.conflicts and len(p.ops) == touch, (p.conflicts, len(p.ops))
            restore.apply(store, p)

    out["undo"] = _timed(undo)
    out["size"] = (_du(store.dir) / 1e6, 0.0)
    return out


# ---- a shadow git repository ------------------------------------------------------------------


def _git(ws: Path, gitdir: Path, *args: str) -> bytes:
    argv = ["git", "--no-pager", f"--git-dir={gitdir}", f"--work-tree={ws}"]
    for setting in (*OVERRIDES, "core.attributesFile=/dev/null", "user.name=rivulet", "user.email=r@localhost",
                    "gc.auto=0", "commit.gpgSign=false"):
        argv += ["-c", setting]
    proc = subprocess.run(argv + list(args), cwd=ws, env=git_env(), capture_output=True, check=True)
    return proc.stdout


def run_git(ws: Path, data: Path, touch: int) -> dict[str, tuple[float, float]]:
    gitdir = data / "shadow.git"
    out: dict[str, tuple[float, float]] = {}

    def commit() -> None:
        _git(ws, gitdir, "add", "-A")
        _git(ws, gitdir, "commit", "-q", "--allow-empty", "--no-verify", "-m", "checkpoint")

    def first() -> None:
        subprocess.run(["git", "init", "-q", "--bare", str(gitdir)], env=git_env(), check=True)
        # The workspace's .gitattributes must not name filters or convert line endings.
        (gitdir / "info").mkdir(exist_ok=True)
        (gitdir / "info" / "attributes").write_text("* -text -filter -diff -merge -ident -eol\n")
        commit()

    out["first"] = _timed(first)
    out["idle"] = _timed(commit)
    touched = _touch(ws, touch, 2)
    out["turn"] = _timed(commit)
    rels = [p.relative_to(ws).as_posix() for p in touched]
    out["undo"] = _timed(lambda: _git(ws, gitdir, "checkout", "HEAD~1", "--", *rels))
    out["size"] = (_du(gitdir) / 1e6, 0.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--touch", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    results: dict[str, list[dict[str, tuple[float, float]]]] = {"rivulet (stat walk + CAS)": [], "shadow git": []}
    for _ in range(args.repeat):
        for name, fn in (("rivulet (stat walk + CAS)", run_cas), ("shadow git", run_git)):
            with tempfile.TemporaryDirectory(prefix="rivulet-cpbench-") as tmp:
                ws, data = Path(tmp) / "ws", Path(tmp) / "data"
                ws.mkdir()
                data.mkdir()
                _workspace(ws, args.files)
                os.sync()
                results[name].append(fn(ws, data, args.touch))
                shutil.rmtree(ws)
    print(f"{args.files:,} files, {args.touch} changed by the turn, median of {args.repeat} (wall s / CPU s)")
    print(f"{'design':28} {'first':>15} {'idle':>15} {'turn':>15} {'undo':>15} {'store MB':>9}")
    for name, runs in results.items():
        cells = []
        for key in ("first", "idle", "turn", "undo"):
            wall = statistics.median(r[key][0] for r in runs)
            cpu = statistics.median(r[key][1] for r in runs)
            cells.append(f"{wall:6.3f} / {cpu:6.3f}")
        size = statistics.median(r["size"][0] for r in runs)
        print(f"{name:28} {' '.join(f'{c:>15}' for c in cells)} {size:9.1f}")


if __name__ == "__main__":
    main()
