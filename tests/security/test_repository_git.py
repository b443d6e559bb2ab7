"""Attack: a planted `.git` runs code through rivulet's own git (issue 21, attack 2).

A sandboxed `git init && git config core.fsmonitor "<payload>"`, or an unpacked archive
shipping `.git/config`, or a worktree's `.git` file rewritten to `gitdir: evil`: the next
`@` in the composer ran `git ls-files` for the completion, which ran the payload as the
user, unsandboxed. rivulet's git must run nothing the repository names."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rivulet.app.attach.file_completion import FileCompletion
from rivulet.core.tools.safe_git import git_argv, run_git
from rivulet.core.tools.workspace_files import list_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _payload(marker: Path) -> str:
    return f"touch {marker}; echo"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"})


def _hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A work tree whose .git/config names a payload in every code-running key."""
    repo, marker = tmp_path / "repo", tmp_path / "PWNED"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "notes.txt").write_text("hello\n")
    _git(repo, "add", "notes.txt")
    payload = _payload(marker)
    with (repo / ".git" / "config").open("a") as f:  # as an archive would ship it
        f.write(f'[core]\n\tfsmonitor = "{payload}"\n\tsshCommand = "{payload}"\n\tpager = "{payload}"\n'
                f'[diff]\n\texternal = "{payload}"\n[filter "x"]\n\tclean = "{payload}"\n'
                f'\tsmudge = "{payload}"\n\tprocess = "{payload}"\n')
    (repo / ".gitattributes").write_text("* filter=x diff=x\n")
    hooks = repo / ".git" / "hooks"
    for hook in ("post-index-change", "pre-commit", "post-checkout"):
        (hooks / hook).write_text(f"#!/bin/sh\n{payload}\n")
        (hooks / hook).chmod(0o755)
    return repo, marker


def test_completion_in_a_repo_with_a_hostile_config_runs_nothing(tmp_path: Path) -> None:
    repo, marker = _hostile_repo(tmp_path)
    completion = FileCompletion(repo)
    found = completion.find("look at @no", (0, 11))  # what typing `@no` asks
    assert found is not None and [e.label for e in found.entries] == ["notes.txt"]
    assert not marker.exists(), "the repository's fsmonitor payload ran"
    # And the plain git of today's main would have run it: the test has teeth.
    subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=repo, capture_output=True, check=False)
    assert marker.exists()


def test_a_git_file_pointing_at_an_evil_gitdir_runs_nothing(tmp_path: Path) -> None:
    """A worktree-style `.git` FILE: `gitdir: evil`, whose config names the payload."""
    repo, marker = tmp_path / "wt", tmp_path / "PWNED"
    repo.mkdir()
    _git(repo, "init", "-q", "--bare", "evil")
    with (repo / "evil" / "config").open("a") as f:
        f.write(f'[core]\n\tbare = false\n\tfsmonitor = "{_payload(marker)}"\n')
    (repo / ".git").write_text("gitdir: evil\n")
    (repo / "a.py").write_text("x = 1\n")
    files = list_files(repo)
    assert "a.py" in files
    assert not marker.exists(), "the evil gitdir's fsmonitor payload ran"


def test_the_callers_git_environment_is_not_inherited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GIT_* variables (GIT_DIR, GIT_CONFIG_*) can name another repository or more config."""
    repo, marker = _hostile_repo(tmp_path)
    outer = tmp_path / "outer.cfg"
    outer.write_text(f'[core]\n\tfsmonitor = "{_payload(marker)}"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(outer))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", _payload(marker))
    proc = run_git(repo, "ls-files", "-z")
    assert proc.returncode == 0 and b"notes.txt" in proc.stdout
    assert not marker.exists()


def test_git_diff_is_refused_because_it_runs_filters(tmp_path: Path) -> None:
    """`git diff` of a changed work-tree file runs the repository's clean filter (the
    `filter.x.process` above): so rivulet never runs it."""
    repo, marker = _hostile_repo(tmp_path)
    (repo / "notes.txt").write_text("changed\n")
    with pytest.raises(ValueError):
        run_git(repo, "diff")
    assert not marker.exists()


def test_only_commands_that_run_no_driver_are_allowed() -> None:
    with pytest.raises(ValueError):
        git_argv("status")  # runs filters on stat-dirty files
    with pytest.raises(ValueError):
        git_argv("checkout", "x")
    argv = git_argv("ls-files")
    assert argv[-1] == "ls-files" and "core.fsmonitor=false" in argv and "core.hooksPath=/dev/null" in argv
