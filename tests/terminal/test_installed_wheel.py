"""`pip install` gives a working app: the wheel is built from this checkout, installed
into a fresh virtualenv (no editable install hiding missing package data), and the
chat and `exec --demo` are started from that install."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .chat_app import chat_ready
from .tmux import Terminal

ROOT = Path(__file__).resolve().parents[2]


def run(*argv: str | Path, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=900, **kw)
    assert proc.returncode == 0, f"{argv}: {proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the fresh venv's bin directory)."""
    base = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", base / "dist", ROOT)
    wheel = next((base / "dist").glob("rivulet-*.whl"))
    run(sys.executable, "-m", "venv", base / "venv")
    run(base / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    return wheel, base / "venv" / "bin"


def test_the_wheel_carries_the_stylesheet_and_the_license(installed):
    wheel, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "rivulet/themes/rivulet.tcss" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta and "Requires-Dist: rich" in meta
    assert "Programming Language :: Python :: 3.13" in meta


def test_the_installed_chat_starts_and_quits_cleanly(installed, term: Terminal):
    _, bin_dir = installed
    term.start([str(bin_dir / "rivulet")], cwd=term.home / "work")
    term.wait(chat_ready, what="the installed chat")
    term.send("C-q")
    assert term.wait_exit() == 0, term.screen()


def test_the_installed_exec_demo_answers(installed, home):
    _, bin_dir = installed
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": str(home / "data")}
    proc = run(bin_dir / "rivulet", "exec", "--demo", "hello wheel", env=env, cwd=home / "work")
    assert 'You asked: "hello wheel"' in proc.stdout


def test_a_crashing_chat_exits_non_zero(installed, term: Terminal):
    """A broken install (no stylesheet) must not look like success."""
    _, bin_dir = installed
    sheet = next(bin_dir.parent.glob("lib/python*/site-packages/rivulet/themes/rivulet.tcss"))
    saved = sheet.read_bytes()
    sheet.unlink()
    try:
        term.start([str(bin_dir / "rivulet")], cwd=term.home / "work")
        assert term.wait_exit() != 0
    finally:
        sheet.write_bytes(saved)
