"""scripts/run's set-up (scripts/setup --app-only, issue 25): it says what it does at once,
installs only the app (no test extras) with uv when it has one (on PATH, kept from an
earlier first run, or taken from uv's wheel) and with pip when not, and falls back to pip
when uv fails. Offline: python, pip and uv are stand-ins that log how they were called."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROGRESS = "setting up rivulet in .venv (first run, about 15 s)…"

FAKE_PYTHON = textwrap.dedent(f"""\
    #!{sys.executable}
    # A stand-in python: logs its arguments; venv, pip and ensurepip are pretended.
    import json, os, shutil, sys
    args = sys.argv[1:]
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write(json.dumps(["python", *args]) + "\\n")
    if args[:2] == ["-m", "venv"]:
        os.makedirs(os.path.join(args[-1], "bin"))
        shutil.copy(__file__, os.path.join(args[-1], "bin", "python"))
    elif args[:3] == ["-m", "pip", "--version"]:
        sys.exit(1)  # a venv made for uv has no pip
    elif args[:3] == ["-m", "pip", "download"]:
        wheel = os.environ.get("FAKE_WHEEL")
        if not wheel:
            sys.exit(1)  # no network, no wheel
        shutil.copy(wheel, args[args.index("--dest") + 1])
    elif args[:2] == ["-m", "pip"] or args[:2] == ["-m", "ensurepip"]:
        pass
    else:
        os.execv({sys.executable!r}, [{sys.executable!r}, *args])
    """)

FAKE_UV = textwrap.dedent("""\
    #!/bin/sh
    # A stand-in uv: logs its arguments, exits with FAKE_UV_STATUS.
    printf '%s\\n' "$(printf '"%s",' uv "$@" | sed 's/^/[/; s/,$/]/')" >> "$FAKE_LOG"
    exit "${FAKE_UV_STATUS:-0}"
    """)


def _executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


class Checkout:
    """A checkout holding scripts/setup, with stand-ins for python and uv."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.repo = tmp / "repo"
        (self.repo / "scripts").mkdir(parents=True)
        for name in ("setup", "unpack_uv.py"):
            shutil.copy(ROOT / "scripts" / name, self.repo / "scripts" / name)
        (self.repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
        self.log = tmp / "calls.log"
        self.python = _executable(tmp / "python", FAKE_PYTHON)
        self.bin = tmp / "bin"
        self.bin.mkdir()
        self.uv_script = FAKE_UV
        self.cache = tmp / "cache"

    def uv_on_path(self) -> None:
        _executable(self.bin / "uv", self.uv_script)

    def wheel(self) -> Path:
        """A uv wheel as PyPI has it: the program under uv-<version>.data/scripts/."""
        path = self.tmp / "uv-9.9.9-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("uv-9.9.9.data/scripts/uv", self.uv_script)
        return path

    def run(self, **env: str) -> subprocess.CompletedProcess[str]:
        full = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": str(self.tmp), "XDG_CACHE_HOME": str(self.cache),
                "PYTHON": str(self.python), "FAKE_LOG": str(self.log), **env}
        return subprocess.run(["bash", str(self.repo / "scripts" / "setup"), "--app-only"], env=full,
                              capture_output=True, text=True, timeout=120)

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def installs(self) -> list[list[str]]:
        return [c for c in self.calls() if "install" in c]


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    return Checkout(tmp_path)


UV_INSTALL = ["pip", "install", "--quiet", "--python", ".venv/bin/python", "-e", "."]
PIP_INSTALL = ["python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", "."]


def test_the_uv_on_path_installs_the_app_alone_and_the_progress_line_comes_first(checkout):
    checkout.uv_on_path()
    done = checkout.run()
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [PROGRESS, "rivulet is set up: starting"]
    assert checkout.calls()[0] == ["python", "-m", "venv", "--without-pip", ".venv"]
    assert checkout.installs() == [["uv", *UV_INSTALL]]  # "-e ." alone: no [test] extras
    assert (checkout.repo / ".venv" / ".rivulet-app-installed").exists()
    assert not any("download" in c for c in checkout.calls())


def test_without_uv_its_wheel_is_unpacked_kept_and_used_the_next_time(checkout):
    done = checkout.run(FAKE_WHEEL=str(checkout.wheel()))
    assert done.returncode == 0, done.stderr
    kept = checkout.cache / "rivulet" / "uv"
    assert os.access(kept, os.X_OK)
    assert [c[:3] for c in checkout.calls() if "download" in c] == [["python", "-m", "pip"]]
    assert checkout.installs() == [["uv", *UV_INSTALL]]
    # A second checkout's first run: the kept uv, nothing downloaded.
    second = Checkout(checkout.tmp / "second")
    second.cache = checkout.cache
    assert second.run().returncode == 0
    assert not any("download" in c for c in second.calls())
    assert second.installs() == [["uv", *UV_INSTALL]]


@pytest.mark.parametrize("case", ["no wheel", "uv fails", "uv refused"])
def test_pip_installs_when_there_is_no_working_uv(checkout, case):
    env = {"RIVULET_UV": "absent-uv-for-this-test"}
    if case == "uv fails":
        checkout.uv_on_path()
        env = {"FAKE_UV_STATUS": "1"}
    elif case == "uv refused":
        checkout.uv_on_path()
        env = {"RIVULET_UV": "none"}
    done = checkout.run(**env)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == PROGRESS and "installing with pip (no uv)" in lines[1]
    assert ["python", "-m", "ensurepip", "--default-pip"] in checkout.calls()  # the venv had no pip
    assert checkout.installs()[-1] == PIP_INSTALL
    assert (checkout.repo / ".venv" / ".rivulet-app-installed").exists()
    if case == "uv refused":
        assert not any(c[0] == "uv" or "download" in c for c in checkout.calls())


def test_a_set_up_checkout_starts_at_once(checkout):
    checkout.uv_on_path()
    assert checkout.run().returncode == 0
    checkout.log.unlink()
    again = checkout.run()
    assert (again.returncode, again.stderr, checkout.calls()) == (0, "", [])
