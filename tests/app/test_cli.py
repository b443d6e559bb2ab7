"""The command line and its configuration: flags anywhere, errors that say where a bad
value came from, a config file whose typos are caught, and help for every option."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rivulet.app.cli import GLOBAL_OPTIONS, build_parser


def rivulet(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    full.update({"RIVULET_CONFIG": os.devnull, **(env or {})})
    return subprocess.run([sys.executable, "-m", "rivulet.app", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=120)


def test_version():
    proc = rivulet("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("rivulet 0.")


@pytest.mark.parametrize("argv", [
    ["--model", "m1", "--approval", "never-ask", "exec", "hi"],
    ["exec", "--model", "m1", "--approval", "never-ask", "hi"],
    ["--model", "m1", "exec", "hi", "--approval", "never-ask"],
])
def test_global_flags_before_or_after_the_command(argv):
    args = build_parser().parse_args(argv)
    assert (args.command, args.model, args.approval, args.prompt) == ("exec", "m1", "never-ask", "hi")


def test_a_flag_after_the_command_wins_over_one_before():
    args = build_parser().parse_args(["--model", "before", "exec", "--model", "after", "hi"])
    assert args.model == "after"


def test_a_flag_before_the_command_reaches_the_run(tmp_path):
    proc = rivulet("--base-url", "ftp://before", "exec", "hi")
    assert proc.returncode == 2 and "bad --base-url" in proc.stderr


def test_bad_value_from_the_environment_names_the_variable():
    proc = rivulet("exec", "hi", env={"OPENAI_BASE_URL": "ftp://from-env"})
    assert proc.returncode == 2
    assert proc.stderr.startswith("rivulet: error: bad $OPENAI_BASE_URL:") and proc.stderr.count("\n") == 1


def test_bad_value_from_the_config_file_names_the_file(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('base_url = "ftp://from-file"\n')
    proc = rivulet("exec", "hi", env={"RIVULET_CONFIG": str(config)})
    assert proc.returncode == 2
    assert f"'base_url' in config file {config}" in proc.stderr and proc.stderr.count("\n") == 1


def test_unknown_config_key_suggests_the_nearest_name(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('modle = "gpt-x"\n')
    proc = rivulet("exec", "--demo", "hi", env={"RIVULET_CONFIG": str(config)})
    assert proc.returncode == 2
    assert "unknown setting 'modle'" in proc.stderr and "did you mean 'model'?" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_missing_config_file_named_by_the_environment_is_an_error(tmp_path):
    proc = rivulet("exec", "--demo", "hi", env={"RIVULET_CONFIG": str(tmp_path / "nope.toml")})
    assert proc.returncode == 2 and "$RIVULET_CONFIG names" in proc.stderr and "nope.toml" in proc.stderr


def test_exec_without_a_key_or_url_says_how_to_use_the_demo():
    proc = rivulet("exec", "hi")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "--demo" in proc.stderr and "OPENAI_API_KEY" in proc.stderr


def test_exec_demo_answers_from_the_demo(tmp_path):
    proc = rivulet("exec", "--demo", "hello there", env={"RIVULET_SESSIONS_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert 'You asked: "hello there"' in proc.stdout


def test_exec_names_a_refused_agents_md_on_stderr(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").symlink_to("/proc/self/environ")
    proc = rivulet("exec", "--demo", "hi", env={"RIVULET_SESSIONS_DIR": str(tmp_path / "s")}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (f"rivulet: warning: AGENTS.md: {tmp_path / 'AGENTS.md'} not read: it is a link to "
                           "outside the workspace\n")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_option_of_every_command_has_help():
    parser = build_parser()
    commands = {"rivulet": parser, **_subcommands(parser)}
    assert set(commands) >= {"rivulet", "exec", "resume", "sessions", "export", "replay"}
    for name, sub in commands.items():
        text = sub.format_help()
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help and action.help != argparse.SUPPRESS, f"{name}: {action.dest} has no help"
            for flag in action.option_strings:
                assert flag in text, f"{name} --help does not show {flag}"
        for flags, _ in GLOBAL_OPTIONS:  # every command takes the global options
            assert flags[0] in text, f"{name} --help does not show {flags[0]}"


def test_a_command_builds_only_its_own_options():
    """`rivulet exec` does not build the other commands' options (argparse makes a help
    formatter per option: ~5 ms of every start); listing the commands builds them all."""
    parser = build_parser()
    assert parser.parse_args(["exec", "--json", "hi"]).json is True
    choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    unbuilt = dict.__getitem__(choices, "doctor")  # (the stored parser, without filling it)
    assert [a.dest for a in unbuilt._actions] == ["help"]
    assert "--timeout" in _subcommands(parser)["doctor"].format_help()
