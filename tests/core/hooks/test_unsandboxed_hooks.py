"""Issue 35, item 4: a hook run outside the sandbox (`hooks_sandbox = "off"`) runs nothing
a sandboxed command could have written: a program or named file in the workspace (by
path, by PATH, through a link that lies there) is refused in one line, said once; the
same names are protected paths while the hooks are configured; and its git takes no
planted repository's settings. (The attacks through a real sandboxed command, as root
and as nobody: tests/security/test_hook_sandbox.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from rivulet.core.hooks.dispatch import Hooks
from rivulet.core.hooks.events import HookNote
from rivulet.core.hooks.runner import run_hook
from rivulet.core.hooks.spec import HookSpec
from rivulet.core.hooks.unsandboxed import git_env
from rivulet.core.hooks.wiring import wire_tools
from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.protected import protection_reason
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.sandbox import Sandbox
from rivulet.core.turn.bus import EventBus

OFF = "off"


def spec(*command: str, event: str = "turn_end") -> HookSpec:
    return HookSpec(event, tuple(command), 30)


def script(path, body: str = "touch ran") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


@pytest.fixture
def ws(tmp_path):
    path = tmp_path / "ws"
    path.mkdir()
    return path.resolve()


async def run_off(ws, *command: str, files=()):
    return await run_hook(spec(*command), {}, ws, files=files, sandbox=Sandbox(OFF, ws))


async def test_a_program_found_on_path_in_the_workspace_is_refused(ws, monkeypatch):
    script(ws / "bin" / "fmt")
    monkeypatch.setenv("PATH", f"{ws / 'bin'}:{os.environ['PATH']}")
    result = await run_off(ws, "fmt")
    assert result.refused is not None and not (ws / "ran").exists()
    assert "its program (bin/fmt) is in the workspace" in result.refused
    assert 'hooks_sandbox = "workspace-write"' in result.refused and "\n" not in result.refused


async def test_a_script_named_as_an_argument_is_refused(ws):
    script(ws / "check.sh")
    result = await run_off(ws, "sh", "check.sh")
    assert result.refused is not None and "the file it names (check.sh)" in result.refused
    assert not (ws / "ran").exists()


async def test_a_link_in_the_workspace_is_refused_wherever_it_points(ws, tmp_path):
    script(tmp_path / "tools" / "good")
    (ws / "hook").symlink_to(tmp_path / "tools" / "good")  # it can be repointed
    result = await run_off(ws, "./hook")
    assert result.refused is not None and "(hook)" in result.refused and not (ws / "ran").exists()


async def test_a_link_chain_from_outside_through_the_workspace_is_refused(ws, tmp_path):
    script(tmp_path / "real" / "tool")
    (ws / "relay").symlink_to(tmp_path / "real" / "tool")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tool").symlink_to(ws / "relay")
    result = await run_off(ws, str(tmp_path / "bin" / "tool"))
    assert result.refused is not None and "(relay)" in result.refused and not (ws / "ran").exists()


async def test_hooks_outside_the_workspace_still_run_and_files_are_data(ws):
    (ws / "a.txt").write_text("formatted\n")
    result = await run_off(ws, "cat", "{files}", files=["a.txt"])
    assert result.ok and result.stdout == "formatted\n"
    result = await run_off(ws, sys.executable, "-c", "print('hi')")
    assert result.ok and result.stdout == "hi\n"
    assert (await run_off(ws, "no-such-hook-program")).error == "not found on PATH"


async def test_a_sandboxed_hook_is_not_refused(ws, monkeypatch):
    """Only `off` refuses: a hook asked to be sandboxed where no sandbox can run is told
    about once, as before (and then the shell tool asks for every command too)."""
    monkeypatch.setattr("rivulet.core.tools.sandbox._probe", None)
    monkeypatch.setattr("rivulet.core.tools.sandbox.shutil.which", lambda name: None)  # no bwrap
    script(ws / "check.sh", "echo checked")
    result = await run_hook(spec("./check.sh"), {}, ws, sandbox=Sandbox("workspace-write", ws))
    assert result.refused is None and result.stdout == "checked\n"


async def test_a_refused_hook_is_one_note_said_once(ws):
    script(ws / "hook.sh")
    bus = EventBus()
    notes: list[HookNote] = []
    bus.subscribe(notes.append, HookNote)
    hooks = Hooks([spec("./hook.sh")], ws, bus, Sandbox(OFF, ws))
    await hooks.turn_end(1, "done", None)
    await hooks.turn_end(2, "done", None)
    await bus.drain()
    assert len(notes) == 1 and notes[0].failed and "\n" not in notes[0].line()
    assert notes[0].line().startswith("hook turn_end · ./hook.sh: not run: its program (hook.sh) is in the workspace")
    assert not (ws / "ran").exists()


def test_the_files_hooks_run_or_name_are_protected_paths(ws, tmp_path):
    script(ws / "scripts" / "fmt.sh")
    script(ws / "hook.sh")
    script(ws / "a[1].sh")
    script(tmp_path / "outside" / "tool")
    (ws / "linked").symlink_to(ws / "scripts" / "fmt.sh")
    tools = AgentTools(ToolSettings(workspace=ws), ApprovalPolicy("auto", lambda r: Decision.NO))
    before = tools.settings.protected_paths
    wire_tools(Hooks([spec("./hook.sh"), spec("sh", "scripts/fmt.sh", "{files}"), spec("./a[1].sh"),
                      spec("./linked"), spec(str(tmp_path / "outside" / "tool"), "-v")], ws), tools)
    patterns = tools.settings.protected_paths
    assert patterns[:len(before)] == before
    for rel in ("hook.sh", "scripts/fmt.sh", "a[1].sh", "linked"):
        assert protection_reason(ws, rel, patterns) is not None, rel
    assert protection_reason(ws, "a1.sh", patterns) is None  # the name, not a glob
    assert protection_reason(ws, "scripts/other.sh", patterns) is None
    assert len(patterns) == len(before) + 4


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
async def test_a_planted_bare_repository_runs_no_fsmonitor_in_a_hooks_git(ws, tmp_path):
    mark = tmp_path / "pwned"
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (["init", "-q", "--bare", "."], ["config", "core.bare", "false"],
                 ["config", "core.worktree", str(ws)], ["config", "core.fsmonitor", f"touch {mark}; false"]):
        subprocess.run(["git", *args], cwd=ws, env=env, check=True)
    result = await run_off(ws, "git", "status")
    assert not mark.exists(), "the planted repository's fsmonitor ran"
    assert not result.ok  # git refuses the implicit bare repository


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
async def test_a_hooks_git_still_works_in_a_real_repository_and_below_it(tmp_path):
    repo = tmp_path / "mono"
    (repo / "app").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for where in (repo, repo / "app"):
        result = await run_off(where.resolve(), "git", "status", "--porcelain")
        assert result.ok, result.stderr


def test_the_callers_own_git_settings_are_kept():
    env = git_env({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "me"})
    assert env["GIT_CONFIG_COUNT"] == "4" and env["GIT_CONFIG_KEY_0"] == "user.name"
    assert [env[f"GIT_CONFIG_KEY_{n}"] for n in (1, 2, 3)] == ["safe.bareRepository", "core.fsmonitor",
                                                                "core.hooksPath"]
