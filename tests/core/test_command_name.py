"""Hints name the command as the user started it (issue 38.2): core/command_name.py."""

from __future__ import annotations

from pathlib import Path

from rivulet.core.command_name import started_as


def nowhere(name: str) -> str | None:
    return None


def test_scripts_run_is_said_back_as_it_was_called():
    assert started_as("scripts/run", ["/usr/bin/python3", "/x/.venv/bin/rivulet"], "/x/.venv/bin/rivulet",
                      nowhere) == "scripts/run"
    assert started_as("/home/a b/scripts/run", [], "", nowhere) == "'/home/a b/scripts/run'"


def test_python_dash_m_is_said_back_with_the_interpreter_as_typed():
    assert started_as("", ["python3", "-m", "rivulet.app", "resume"], "/x/app/__main__.py",
                      nowhere) == "python3 -m rivulet.app"
    assert started_as("", [".venv/bin/python", "-X", "dev", "-mrivulet.app"], "/x/__main__.py",
                      nowhere) == ".venv/bin/python -m rivulet.app"


def test_another_module_or_program_running_rivulet_gets_the_plain_name():
    """pytest (`python -m pytest`) or a program importing rivulet: not a command to give a user."""
    assert started_as("", ["python", "-m", "pytest", "-m", "rivulet"], "/x/pytest/__main__.py", nowhere) == "rivulet"
    assert started_as("", ["python", "-c", "..."], "-c", nowhere) == "rivulet"


def test_the_program_on_path_is_rivulet_and_another_is_its_path(tmp_path: Path):
    mine, other = tmp_path / "venv" / "bin" / "rivulet", tmp_path / "bin" / "rivulet"
    for program in (mine, other):
        program.parent.mkdir(parents=True)
        program.write_text("#!/bin/sh\n")
    link = tmp_path / "local-bin" / "rivulet"  # pipx and `uv tool` link the program into ~/.local/bin
    link.parent.mkdir()
    link.symlink_to(mine)
    argv = ["/usr/bin/python3", str(mine)]
    assert started_as("", argv, str(mine), lambda name: str(link)) == "rivulet"
    assert started_as("", argv, str(mine), lambda name: str(other)) == str(mine)
    assert started_as("", argv, str(mine), nowhere) == str(mine)
    assert started_as("", argv, ".venv/bin/rivulet", lambda name: str(other)) == ".venv/bin/rivulet"

