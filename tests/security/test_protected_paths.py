"""Attack 4 of issue 11: under auto-edit a silently applied patch to .git/config
(core.fsmonitor), a hook, a .pth file in a virtualenv or rivulet's own config.toml ran
code later or turned approvals off. Such writes now always ask, and say why."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_helpers import agent_app, answer, patch_turn
from helpers.calls import Scripted, custom_call
from helpers.config_files import empty_config
from helpers.tui import GatedServer, until
from hostile import screen_output

from rivulet.core.config import Settings
from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings, tool_settings
from rivulet.widgets.dialogs import ApprovalScreen


def _add(path: str, text: str) -> str:
    return f"*** Begin Patch\n*** Add File: {path}\n" + "".join(f"+{line}\n" for line in text.splitlines()) + \
        "*** End Patch\n"


def _update(path: str, old: str, new: str) -> str:
    added = "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n{added}*** End Patch\n"


async def _run(tools: AgentTools, patch: str) -> str:
    return (await tools.run(custom_call("ct_1", "call_p", "apply_patch", patch)))["output"]


def _tools(ws: Path, approver: Scripted, policy: str = "auto-edit", **kw) -> AgentTools:
    return AgentTools(ToolSettings(workspace=ws, **kw), ApprovalPolicy(policy, approver))


def _venv(ws: Path) -> None:
    (ws / "venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (ws / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")


def _rivulet_config_in(ws: Path, monkeypatch) -> str:
    (ws / "conf").mkdir()
    (ws / "conf" / "config.toml").write_text('approval = "auto-edit"\n')
    monkeypatch.setenv("RIVULET_CONFIG", str(ws / "conf" / "config.toml"))
    return "conf/config.toml"


ATTACKS = {
    "git_fsmonitor": (lambda ws, mp: (ws / ".git").mkdir() or (ws / ".git" / "config").write_text("[core]\n")
                      or None, _update(".git/config", "[core]", "[core]\n\tfsmonitor = touch /tmp/pwned"),
                      ".git/config", "version control"),
    "git_hook": (lambda ws, mp: (ws / ".git" / "hooks").mkdir(parents=True),
                 _add(".git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/pwned"), ".git/hooks/pre-commit",
                 "version control"),
    "pth_in_venv": (lambda ws, mp: _venv(ws), _add("venv/lib/python3.11/site-packages/zz.pth", "import os"),
                    "venv/lib/python3.11/site-packages/zz.pth", "Python"),
    "pth_in_unnamed_venv": (lambda ws, mp: (ws / "tools").mkdir() or (ws / "tools" / "pyvenv.cfg").write_text(""),
                            _add("tools/lib/x.py", "import os"), "tools/lib/x.py", "virtualenv"),
    "rivulet_config": (lambda ws, mp: _rivulet_config_in(ws, mp),
                       _update("conf/config.toml", 'approval = "auto-edit"', 'approval = "never-ask"'),
                       "conf/config.toml", "rivulet's own"),
    "envrc": (lambda ws, mp: None, _add(".envrc", "touch /tmp/pwned"), ".envrc", "direnv"),
    "vscode_tasks": (lambda ws, mp: None, _add(".vscode/tasks.json", "{}"), ".vscode/tasks.json", "editor"),
    "bashrc": (lambda ws, mp: None, _add(".bashrc", "touch /tmp/pwned"), ".bashrc", "shell start-up"),
    # Issue 21: CI workflows run with the repository's secrets; a worktree's `.git` file
    # points at the git directory, whose hooks run as .git's do.
    "github_workflow": (lambda ws, mp: None, _add(".github/workflows/ci.yml", "on: push"), ".github/workflows/ci.yml",
                        "CI runs it"),
    "gitdir_target": (lambda ws, mp: (ws / "wt.git" / "hooks").mkdir(parents=True)
                      or (ws / ".git").write_text("gitdir: wt.git\n") or None,
                      _add("wt.git/hooks/post-checkout", "touch /tmp/pwned"), "wt.git/hooks/post-checkout",
                      "git directory that .git points to"),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_a_write_that_can_run_code_later_asks_under_auto_edit(tmp_path, monkeypatch, attack):
    prepare, patch, target, why = ATTACKS[attack]
    prepare(tmp_path, monkeypatch)
    before = (tmp_path / target).read_text() if (tmp_path / target).exists() else None
    approver = Scripted(Decision.NO)
    output = await _run(_tools(tmp_path, approver), patch)
    assert len(approver.asked) == 1, f"the patch was not asked about: {output}"
    assert approver.asked[0].protected and why in approver.asked[0].protected[0]
    assert "declined" in output
    after = (tmp_path / target).read_text() if (tmp_path / target).exists() else None
    assert after == before


async def test_always_does_not_open_protected_paths_for_the_session(tmp_path):
    (tmp_path / ".git").mkdir()
    approver = Scripted(Decision.ALWAYS, Decision.NO)
    tools = _tools(tmp_path, approver, policy="ask")
    assert "Success" in await _run(tools, _add(".git/info-a", "x"))
    assert "declined" in await _run(tools, _add(".git/info-b", "x"))
    assert len(approver.asked) == 2 and not (tmp_path / ".git" / "info-b").exists()
    assert "Success" in await _run(_tools(tmp_path, Scripted(), policy="auto-edit"), _add("src/ok.py", "x"))


async def test_the_list_is_configurable(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "none.toml")))
    custom = tool_settings(Settings(workspace=str(tmp_path), protected_paths=["deploy/*.sh"], api_key="k"))
    assert custom.protected_paths == ("deploy/*.sh",)
    approver = Scripted(Decision.NO)
    tools = AgentTools(custom, ApprovalPolicy("auto-edit", approver))
    await _run(tools, _add("deploy/run.sh", "x"))
    assert approver.asked and "protected_paths" in approver.asked[0].protected[0]
    assert "Success" in await _run(tools, _add(".envrc", "x"))  # no longer in the list
    default = tool_settings(Settings(workspace=str(tmp_path), api_key="k"))
    assert ".git" in default.protected_paths and "*.pth" in default.protected_paths


async def test_the_dialog_names_the_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("RIVULET_CONFIG", str(empty_config(tmp_path / "none.toml")))
    (tmp_path / ".git").mkdir()
    server = GatedServer(patch_turn(_add(".git/hooks/post-checkout", "touch x")), answer())
    app = agent_app(server, tmp_path, approval="auto-edit")
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval question")
        await pilot.pause()
        _, plain = screen_output(app)
        await pilot.press("n")
    assert "⚠ Protected: .git/hooks/post-checkout is inside .git: version control metadata" in plain
