"""An install gives a working app: the wheel is built from this checkout and installed as
the README says a user does, `uv tool install` (a fresh virtualenv of its own, no
editable install hiding missing package data, and a `rivulet` program in a bin folder
on PATH); the chat and `exec --demo` are started by that name (issue 38.2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest

from .chat_app import chat_ready
from .tmux import Terminal

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str | Path, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=900, **kw)
    assert proc.returncode == 0, f"{argv}: {proc.stderr[-3000:]}"
    return proc


class Installed(NamedTuple):
    wheel: Path
    bin: Path  # where `uv tool` put the `rivulet` program (~/.local/bin for a user)
    venv: Path  # the tool's own virtualenv


def a_uv(base: Path) -> str:
    """uv as scripts/setup finds it: on PATH, else the one a first run kept in the user's
    cache, else taken out of uv's wheel on PyPI (and kept there)."""
    found = shutil.which("uv")
    if found:
        return found
    kept = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rivulet" / "uv"
    if not os.access(kept, os.X_OK):
        run(sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
            "--only-binary=:all:", "--dest", base / "uv-wheel", "uv>=0.5")
        run(sys.executable, ROOT / "scripts" / "unpack_uv.py", base / "uv-wheel", kept)
    return str(kept)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    """The wheel, installed with `uv tool install` into folders of this test's own."""
    base = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", base / "dist", ROOT)
    wheel = next((base / "dist").glob("rivulet-*.whl"))
    env = {**os.environ, "UV_TOOL_DIR": str(base / "tools"), "UV_TOOL_BIN_DIR": str(base / "bin"),
           "UV_PYTHON_DOWNLOADS": "never", "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    run(a_uv(base), "tool", "install", "--quiet", "--python", sys.executable, wheel, env=env)
    return Installed(wheel, base / "bin", base / "tools" / "rivulet")


def on_path(installed: Installed) -> str:
    return f"{installed.bin}:/usr/bin:/bin"


def test_the_wheel_carries_the_stylesheet_and_the_license(installed):
    wheel = installed.wheel
    names = zipfile.ZipFile(wheel).namelist()
    assert "rivulet/themes/rivulet.tcss" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta and "Requires-Dist: rich" in meta
    assert "Programming Language :: Python :: 3.13" in meta


def test_the_installed_chat_runs_by_its_name_and_its_hints_say_that_name(installed, term: Terminal):
    """`rivulet` typed at the prompt: the demo answers, and quitting leaves the conversation
    and `rivulet resume …` (the program on PATH) in the scrollback."""
    term.start(["rivulet"], cwd=term.home / "work", env={"PATH": on_path(installed), "RIVULET_COMMAND": ""})
    term.wait(chat_ready, what="the installed chat")
    term.send("hello installed", "Enter")
    term.wait(lambda s: 'You asked: "hello installed"' in s and "Done in" in s, what="the demo's turn to end")
    term.send("C-q")
    assert term.wait_exit() == 0, term.screen()
    out = term.scrollback()
    assert out.index('You asked: "hello installed"') < out.index("To resume this session: rivulet resume ")


def test_the_installed_exec_demo_answers(installed, home):
    env = {"HOME": str(home), "PATH": on_path(installed), "XDG_DATA_HOME": str(home / "data")}
    proc = run("rivulet", "exec", "--demo", "hello wheel", env=env, cwd=home / "work")
    assert 'You asked: "hello wheel"' in proc.stdout


def test_a_crashing_chat_exits_non_zero(installed, term: Terminal):
    """A broken install (no stylesheet) must not look like success."""
    sheet = next(installed.venv.glob("lib/python*/site-packages/rivulet/themes/rivulet.tcss"))
    saved = sheet.read_bytes()
    sheet.unlink()  # (uv may have linked it to its cache: the link goes, the cache's file stays)
    try:
        term.start(["rivulet"], cwd=term.home / "work", env={"PATH": on_path(installed)})
        assert term.wait_exit() != 0
    finally:
        sheet.write_bytes(saved)
