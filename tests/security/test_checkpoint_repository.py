"""Attacks on checkpoints and /undo (issue 26), as root and as an unprivileged user.

- A hostile repository (hooks, fsmonitor, filter drivers, attributes): checkpoints and
  restores run none of it; rivulet never runs git for them.
- A turn that leaves links where directories were, or read-only files and directories:
  the restore puts the workspace back and never writes through a link.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from as_user import user

DRIVER = Path(__file__).with_name("checkpoint_driver.py")
PAYLOAD = "touch {marker}; echo"


def _drive(who, job: dict) -> dict:
    environ = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "PYTHONDONTWRITEBYTECODE": "1",
               "LANG": "C.UTF-8", "RIVULET_SESSIONS_DIR": job["data"] + "/sessions"}
    done = subprocess.run([sys.executable, str(DRIVER), *who.drop], input=json.dumps(job), capture_output=True,
                          text=True, timeout=120, env=environ)
    assert done.returncode == 0, f"driver failed as {who.name}: {done.stderr[-2000:]}"
    result = json.loads(done.stdout)
    assert result["uid"] == who.uid
    return result


@pytest.fixture(params=["root", "nobody"])
def who(request):
    return user(request.param)


def _dirs(who) -> tuple[Path, Path, Path]:
    top = who.directory("rivulet-cp-")
    ws, data = top / "ws", top / "data"
    for d in (ws, data):
        d.mkdir()
        who.give(d)
    return top, ws, data


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_hostile_repository_runs_nothing_through_checkpoints_or_undo(who):
    top, ws, data = _dirs(who)
    marker = top / "PWNED"
    payload = PAYLOAD.format(marker=marker)
    setup = ("git init -q . && printf 'hello\\n' > notes.txt && printf '* filter=x diff=x\\n' > .gitattributes && "
             f"printf '[core]\\n\\tfsmonitor = \"{payload}\"\\n\\thooksPath = .git/hooks\\n[filter \"x\"]\\n"
             f"\\tclean = \"{payload}\"\\n\\tsmudge = \"{payload}\"\\n\\tprocess = \"{payload}\"\\n' >> .git/config && "
             "for h in pre-commit post-checkout post-index-change reference-transaction; do "
             f"printf '#!/bin/sh\\n{payload}\\n' > .git/hooks/$h; chmod 755 .git/hooks/$h; done")
    try:
        result = _drive(who, {"workspace": str(ws), "data": str(data), "setup": setup,
                              "command": "printf 'changed\\n' > notes.txt && printf 'x\\n' > added.txt"})
        assert result["error"] is None
        assert result["after"]["notes.txt"][2] == "changed\n" and "added.txt" in result["after"]
        assert result["undone"] == result["before"]  # the files came back
        assert not marker.exists(), "the repository's payload ran"
        # The repository is really hostile: plain git in it runs the payload.
        subprocess.run([*who.prefix, "git", "status"], cwd=ws, capture_output=True, env={"PATH": "/usr/bin:/bin",
                                                                             "GIT_CONFIG_NOSYSTEM": "1",
                                                                             "HOME": str(top)})
        assert marker.exists()
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_links_and_read_only_paths_are_restored_and_never_written_through(who):
    top, ws, data = _dirs(who)
    outside = top / "outside"
    setup = (f"mkdir -p src sub {outside} && printf 'one\\n' > src/a.txt && printf 'keep\\n' > ro.txt && "
             "printf 'x\\n' > sub/x")
    command = (f"rm -r src && ln -s {outside} src && chmod 444 ro.txt && mkdir locked && printf 'l\\n' > locked/f && "
               "chmod 555 locked && chmod 500 sub")
    try:
        result = _drive(who, {"workspace": str(ws), "data": str(data), "setup": setup, "command": command})
        assert result["error"] is None, result["error"]
        assert result["after"]["src"] == ["link", str(outside)] and result["after"]["ro.txt"][1] == 0o444
        assert result["undone"] == result["before"], "the workspace did not come back as it was"
        assert list(outside.iterdir()) == [], "the restore wrote through the link"
    finally:
        for p in (ws / "locked", ws / "sub"):
            if p.exists():
                os.chmod(p, 0o755)
        shutil.rmtree(top, ignore_errors=True)


def test_hostile_file_names_and_commands_reach_the_undo_question_clean(tmp_path):
    from helpers.checkpoint_cases import SESSION, turn
    from hostile import HOSTILE, assert_clean

    from rivulet.core.checkpoints import actions, restore

    ws = tmp_path / "ws"
    ws.mkdir()
    name = "evil" + HOSTILE.replace("/", "_")[:150]
    (ws / "f.txt").write_text("a\n")
    cps = turn(ws, tmp_path / "data", lambda w: ((w / name).write_text(HOSTILE), (w / "f.txt").write_text("b\n")),
               command="echo " + HOSTILE)
    p = actions.propose(cps.store, SESSION, "undo")
    assert p is not None
    (ws / name).write_text("mine")  # a conflict: the question names the file
    p = actions.propose(cps.store, SESSION, "undo")
    lines = actions.describe(p)
    assert any("Changed since" in line and "evil[_b]" in line for line in lines)
    assert any(line.startswith("Ran `echo ") for line in lines)
    for line in lines:
        assert_clean(line, "the undo question")
    assert "\x1b" in restore.diff_text(cps.store, p)  # the raw diff holds them: the dialog's diff_text cleans it
