"""The one `.gitignore` walk (core/ignore_walk.py) under the checkpoints' walk and the
`@path` completion outside git: both leave out what git leaves out, git's own answer on
the same tree being the reference."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rivulet.core.checkpoints.walk import walk
from rivulet.core.tools.workspace_files import list_files

TREE = {
    # A line git rejects (`!` alone) is skipped; the file's other lines still apply.
    ".gitignore": "*.log\n!\nbuild/\nnotes\n",
    # Deeper rules win: keep.log comes back here and below; /only/ is anchored to sub/.
    "sub/.gitignore": "!keep.log\n/only/\n",
    "a.log": "", "README.md": "", "sub/keep.log": "", "sub/x.log": "", "sub/only/f": "",
    "sub/deep/only/f": "", "sub/deep/keep.log": "", "build/out.o": "", "src/build": "",
    "notes/n.txt": "", "src/notes": "",
    # A directory-only pattern leaves a file of that name in (src/build); `notes` both.
}


def _tree(root: Path) -> None:
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _git_says(root: Path) -> list[str]:
    """What git leaves in, from a repository kept outside the tree (none of the user's
    own ignore files read)."""
    env = {**os.environ, "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1", "GIT_DIR": str(root.parent / "g.git"),
           "GIT_WORK_TREE": str(root)}
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=root, check=True,
                         capture_output=True, env=env).stdout
    return sorted(os.fsdecode(p) for p in out.split(b"\0") if p)


def test_both_walks_leave_out_what_git_leaves_out(tmp_path):
    ws = tmp_path / "ws"
    _tree(ws)
    expected = _git_says(ws)
    assert "sub/keep.log" in expected and "sub/deep/only/f" in expected and "a.log" not in expected
    assert list_files(ws, use_git=False) == expected
    assert sorted(rel for rel, e in walk(ws).entries.items() if e.kind == "file") == expected


def test_a_path_neither_walk_saw_is_judged_by_the_nearest_rules(tmp_path):
    _tree(tmp_path)
    seen = walk(tmp_path)
    assert seen.ignores("sub/other/keep.log") is False and seen.ignores("sub/new.log") is True
    assert seen.ignores("build/deeper/x.o") is True and seen.ignores("sub/only", is_dir=True) is True
    assert seen.ignores("src/build") is False and seen.ignores("x/.git/config") is True


def test_a_gitignore_that_is_a_link_is_not_read(tmp_path):
    """git reads no `.gitignore` through a link; one pointing outside the workspace
    (or at a file of another user) must not decide what is kept."""
    outside = tmp_path / "outside"
    outside.write_text("*.py\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("")
    (ws / ".gitignore").symlink_to(outside)
    assert list_files(ws, use_git=False) == [".gitignore", "app.py"]
    assert "app.py" in walk(ws).entries
