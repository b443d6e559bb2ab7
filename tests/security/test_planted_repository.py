"""Issue 35, item 1: a planted bare repository. A sandboxed command turned a directory with
no protected name into a git directory (`git init --bare . && git config core.bare false
&& git config core.worktree "$PWD" && git config core.fsmonitor ...`); the user's own
`git status` there then ran the payload outside the sandbox. Now a directory git would
take as a git directory (`HEAD`, `objects/`, `refs/`) is protected at the workspace root
and below: one a command makes is asked about and removed when declined (also `prepN/`,
left when `mv prepN .git` is refused), and one that exists is read-only in the sandbox.
Each runs as root and as nobody, in bubblewrap."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from as_user import User, sandboxed_or_honest, user
from helpers.calls import Scripted, custom_call

from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings

pytestmark = [pytest.mark.bwrap, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]


@pytest.fixture(params=["root", "nobody"])
def who(request) -> User:
    return user(request.param)


@pytest.fixture
def ws(who: User):
    path = who.directory()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def marker(who: User):
    """Where the payload would leave its mark: outside the workspace, the user's own."""
    folder = who.directory("rivulet-mark-")
    yield folder / "PWNED"
    shutil.rmtree(folder, ignore_errors=True)


def _plant(where: str, marker: Path) -> str:
    return (f"git init -q --bare {where} && cd {where} && git config core.bare false && "
            f"git config core.worktree \"$PWD\" && git config core.fsmonitor 'touch {marker}; echo'")


def _users_git_status(who: User, cwd: Path) -> None:
    """What the user runs later, outside the sandbox, as themself (git refuses another
    user's repository, so it runs as the workspace's owner)."""
    subprocess.run([*who.prefix, "git", "status"], cwd=cwd, capture_output=True, timeout=30,
                   env={"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
                        "GIT_CEILING_DIRECTORIES": str(cwd.parent.parent)})


def _give_all(who: User, ws: Path) -> None:
    for path in [ws, *ws.rglob("*")]:
        who.give(path)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"PATH": os.environ.get("PATH", os.defpath), "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"})


@pytest.mark.parametrize("where", [".", "sub"])
def test_a_planted_bare_repository_is_asked_about_and_removed(who, ws, marker, where):
    (ws / "notes.txt").write_text("mine\n")
    who.give(ws / "notes.txt")
    command = _plant(where, marker) if where == "." else f"mkdir {where} && " + _plant(where, marker)
    result = who.drive({"workspace": str(ws), "command": command, "policy": "auto"})
    if not sandboxed_or_honest(who, result):
        return
    assert len(result["asked"]) == 1, f"the planted repository was not asked about: {result['output']}"
    assert any("git directory" in why for why in result["asked"][0]["protected"]), result["asked"]
    assert "undid" in result["output"]
    left = sorted(p.name for p in ws.iterdir())
    assert left == ["notes.txt"], f"the planted repository is still there: {left}"
    assert (ws / "notes.txt").read_text() == "mine\n"
    _users_git_status(who, ws)
    assert not marker.exists(), "the user's git status ran the planted fsmonitor payload"


def test_a_directory_made_a_git_directory_keeps_the_users_files(who, ws, marker):
    """Declined, only what the command added is removed: the folder and its files stay."""
    (ws / "data").mkdir()
    (ws / "data" / "keep.csv").write_text("1,2\n")
    (ws / "data" / "config").write_text("mine\n")  # a user's file that git's name collides with
    _give_all(who, ws)
    result = who.drive({"workspace": str(ws), "command": f"cd data && git init -q --bare . && "
                        f"git config core.fsmonitor 'touch {marker}; echo'", "policy": "auto"})
    if not sandboxed_or_honest(who, result):
        return
    assert len(result["asked"]) == 1 and "data/HEAD" in result["asked"][0]["title"], result["asked"]
    assert sorted(p.name for p in (ws / "data").iterdir()) == ["config", "keep.csv"]
    assert (ws / "data" / "keep.csv").read_text() == "1,2\n"
    _users_git_status(who, ws / "data")
    assert not marker.exists()


def test_a_refused_move_onto_git_leaves_no_repository_behind(who, ws, marker):
    """`mv prep1 .git` is refused (the real .git is read-only): prep1, a complete git
    directory under another name, is asked about and removed."""
    _git(ws, "init", "-q")
    _give_all(who, ws)
    config = (ws / ".git" / "config").read_bytes()
    result = who.drive({"workspace": str(ws), "command": f"git init -q --bare prep1 && "
                        f"git -C prep1 config core.fsmonitor 'touch {marker}; echo' && "
                        "{ mv -T prep1 .git || mv prep1/config .git/config; echo tried; }", "policy": "auto"})
    if not sandboxed_or_honest(who, result):
        return
    assert "tried" in result["output"]
    assert len(result["asked"]) == 1 and "prep1" in result["asked"][0]["title"], result["asked"]
    assert not (ws / "prep1").exists()
    assert (ws / ".git" / "config").read_bytes() == config


def test_an_existing_bare_repository_is_read_only(who, ws, marker):
    _git(ws, "init", "-q", "--bare", "store.git")
    _give_all(who, ws)
    config = (ws / "store.git" / "config").read_bytes()
    result = who.drive({"workspace": str(ws), "command": f"git -C store.git config core.fsmonitor 'touch {marker}'; "
                        "echo '#!/bin/sh' > store.git/hooks/post-checkout; echo done", "policy": "auto"})
    if not sandboxed_or_honest(who, result):
        return
    assert "Read-only file system" in result["output"] or "could not lock" in result["output"], result["output"]
    assert (ws / "store.git" / "config").read_bytes() == config
    assert not (ws / "store.git" / "hooks" / "post-checkout").exists()


# ---- a patch (not sandboxed, so the uid does not matter: in-process) ---------------------------

def _add(*files: str) -> str:
    return "*** Begin Patch\n" + "".join(f"*** Add File: {f}\n+x\n" for f in files) + "*** End Patch\n"


async def _patch(ws: Path, patch: str) -> tuple[str, Scripted]:
    approver = Scripted(Decision.NO)
    tools = AgentTools(ToolSettings(workspace=ws), ApprovalPolicy("auto-edit", approver))
    return (await tools.run(custom_call("ct_1", "call_p", "apply_patch", patch)))["output"], approver


async def test_a_patch_that_makes_a_git_directory_asks(tmp_path):
    output, approver = await _patch(tmp_path, _add("x/HEAD", "x/objects/k", "x/refs/k", "x/config"))
    assert len(approver.asked) == 1 and "declined" in output
    assert any("git directory" in why for why in approver.asked[0].protected), approver.asked[0].protected
    assert not (tmp_path / "x").exists()


async def test_a_patch_into_an_existing_bare_repository_asks(tmp_path):
    _git(tmp_path, "init", "-q", "--bare", "store.git")
    output, approver = await _patch(tmp_path, _add("store.git/hooks/post-checkout"))
    assert len(approver.asked) == 1 and "declined" in output
    assert any("git directory" in why for why in approver.asked[0].protected)
    assert not (tmp_path / "store.git" / "hooks" / "post-checkout").exists()
