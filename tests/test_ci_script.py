"""scripts/test (CI's command, the README's test command): set-up, lint, then rivulet's
bytecode written once before pytest, which starts rivulet as a program over 100 times with
PYTHONDONTWRITEBYTECODE set, and pytest in two xdist workers, the caller's arguments last
(they may change the workers). Offline: setup, lint and python are stand-ins that log."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOGGER = textwrap.dedent(f"""\
    #!{sys.executable}
    import json, os, sys
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(json.dumps([os.path.basename(sys.argv[0]), *sys.argv[1:]]) + "\\n")
    """)


def test_scripts_test_compiles_rivulet_once_then_runs_pytest_in_two_workers_with_the_callers_arguments(tmp_path):
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    (repo / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "test", repo / "scripts" / "test")
    for stand_in in (repo / "scripts" / "setup", repo / "scripts" / "lint", repo / ".venv" / "bin" / "python"):
        stand_in.write_text(LOGGER)
        stand_in.chmod(stand_in.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "calls.log"
    done = subprocess.run(["bash", str(repo / "scripts" / "test"), "-q", "-p", "no:cacheprovider"],
                          env={"PATH": "/usr/bin:/bin", "FAKE_LOG": str(log)}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls == [["setup", "--with-peers"], ["lint"],
                     ["python", "-m", "compileall", "-q", "app", "core", "widgets", "themes"],
                     ["python", "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", "-p", "no:cacheprovider"]]
