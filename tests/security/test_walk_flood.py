"""Issue 35, item 2: a flood turned the protected-path walk off. After a command left 50,001
names at the workspace root, the walk stopped at level 0, and the next command wrote
`pkg/.git/hooks/pre-commit`, `pkg/.git/config`, `pkg/.vscode/tasks.json` and a `.pth` in
`pkg/.venv` without a question; the flooded after-walk also told the model that three
untouched files were "put back". Now a walk cut short fails closed: what earlier walks
found stays protected (read-only), a command in a workspace that cannot be walked whole
asks first, and only a change that happened is reported. Root and nobody, in bubblewrap."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from as_user import User, sandboxed_or_honest, user

pytestmark = pytest.mark.bwrap

# The walk's cap, lowered for the test (the driver sets it): the real one is 50,000 names,
# and this disk makes 50,001 files in ~17 s. The code path is the same.
CAP = 2_000
FLOOD = f"seq -f 'n%g' {CAP + 1} | xargs touch"
PTH = "pkg/.venv/lib/python3.11/site-packages/zz.pth"
WRITES = ("mkdir -p pkg/.git/hooks; echo 'touch /tmp/pwned' > pkg/.git/hooks/pre-commit; "
          "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> pkg/.git/config; "
          "echo '{\"tasks\":[]}' > pkg/.vscode/tasks.json; "
          f"echo 'import os' > {PTH}; echo written")


@pytest.fixture(params=["root", "nobody"])
def who(request) -> User:
    return user(request.param)


@pytest.fixture
def ws(who: User):
    """pkg/ holds a repository, editor tasks and a virtualenv, as a real project would."""
    path = who.directory()
    pkg = path / "pkg"
    pkg.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=pkg, check=True, capture_output=True,
                   env={"PATH": os.environ.get("PATH", os.defpath), "HOME": str(path), "GIT_CONFIG_NOSYSTEM": "1"})
    (pkg / ".vscode").mkdir()
    (pkg / ".vscode" / "tasks.json").write_text("{}\n")
    (path / PTH).parent.mkdir(parents=True)
    (pkg / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for item in [pkg, *pkg.rglob("*")]:
        who.give(item)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _state(ws: Path) -> dict[str, tuple[int, bytes] | None]:
    """Each target's inode and bytes (None: absent): a file put back gets a new inode."""
    out: dict[str, tuple[int, bytes] | None] = {}
    for rel in ("pkg/.git/hooks/pre-commit", "pkg/.git/config", "pkg/.vscode/tasks.json", PTH, "pkg/.venv/pyvenv.cfg"):
        path = ws / rel
        out[rel] = (path.stat().st_ino, path.read_bytes()) if path.exists() else None
    return out


def test_a_flood_keeps_what_earlier_walks_found_and_reports_nothing_false(who, ws):
    before = _state(ws)
    # 1: the flood (declined: rivulet could not check all of it); 2: the writes (allowed to run).
    result = who.drive({"workspace": str(ws), "commands": [FLOOD, WRITES], "policy": "auto", "answers": ["no", "yes"],
                        "max_entries": CAP})
    if not sandboxed_or_honest(who, result):
        return
    flood, writes = result["outputs"]
    assert "put back" not in flood, f"the flooded walk reported a change that did not happen: {flood}"
    assert "written" in writes, writes
    assert _state(ws) == before, f"a protected path in pkg/ was written after the flood: {writes}"
    assert len(result["asked"]) == 2, result["asked"]
    assert all(any("more names than" in why for why in q["protected"]) for q in result["asked"]), result["asked"]


def test_a_workspace_flooded_before_the_session_asks_before_each_command(who, ws):
    for i in range(CAP + 1):
        (ws / f"n{i}").touch()
    result = who.drive({"workspace": str(ws), "command": "mkdir -p pkg/.idea && echo '<x/>' > pkg/.idea/w.xml",
                        "policy": "auto", "max_entries": CAP})
    if not sandboxed_or_honest(who, result):
        return
    assert len(result["asked"]) == 1 and result["asked"][0]["kind"] == "shell", result["asked"]
    assert any("more names than" in why for why in result["asked"][0]["protected"]), result["asked"]
    assert "did not run" in result["output"]
    assert not (ws / "pkg" / ".idea").exists()
