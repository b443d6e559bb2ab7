"""`rivulet --help` and `--version` cost only the interpreter's start: the parser
imports no settings, HTTP or TUI library."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("pydantic", "pydantic_settings", "textual", "httpx", "rich", "rivulet.core.config", "rivulet.app.launch")

PROBE = """
import sys
from rivulet.app import cli
try:
    cli.main([{arg!r}])
except SystemExit as exit:
    code = exit.code
print("LOADED", ",".join(m for m in {heavy!r} if m in sys.modules), "EXIT", code, file=sys.stderr)
"""


def run(arg: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", PROBE.format(arg=arg, heavy=HEAVY)], capture_output=True, text=True,
                          timeout=60)


def test_help_imports_nothing_heavy():
    proc = run("--help")
    assert "usage: rivulet" in proc.stdout and "doctor" in proc.stdout
    assert "LOADED  EXIT 0" in proc.stderr


def test_version_imports_nothing_heavy():
    proc = run("--version")
    assert proc.stdout.startswith("rivulet ")
    assert "LOADED  EXIT 0" in proc.stderr


def test_a_bad_argument_is_an_argparse_error_without_heavy_imports():
    proc = run("--no-such-flag")
    assert "unrecognized arguments: --no-such-flag" in proc.stderr
    assert "LOADED  EXIT 2" in proc.stderr


def test_the_version_printed_is_the_installed_package_version():
    from importlib.metadata import version

    from rivulet.app import VERSION

    assert version("rivulet") == VERSION
    assert run("--version").stdout.strip() == f"rivulet {VERSION}"
