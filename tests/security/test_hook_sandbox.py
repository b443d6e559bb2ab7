"""Issue 28: hooks are the user's commands, but they run on the repository's files (a
formatter after a patch) and get the model's tool arguments on stdin: under the hooks'
sandbox they write the workspace and nothing else, and never see the API key. As root
and as an unprivileged user."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import pytest
from as_user import User, user

DRIVER = Path(__file__).with_name("hook_driver.py")


@pytest.fixture(params=["root", "nobody"])
def who(request) -> User:
    return user(request.param)


@pytest.fixture
def ws(who: User):
    path = who.directory("rivulet-hook-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_hook_writes_the_workspace_only_and_never_sees_the_key(who, ws):
    host = (Path("/opt") if os.geteuid() == 0 else Path.cwd()) / f"rivulet-hook-{secrets.token_hex(4)}"
    host.mkdir()
    who.give(host)
    key = "sk-hook-test-" + secrets.token_hex(8)
    try:
        script = (f"echo ok > formatted; echo pwned > {host}/written 2>/dev/null; echo write=$?; "
                  "env; cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr '\\0' '\\n'")
        result = who.drive({"workspace": str(ws), "command": ["sh", "-c", script], "secret": key}, driver=DRIVER)
        if not who.userns:  # no sandbox for this user here: said by the probe, and the key is still kept out
            assert not result["sandboxed"]
        else:
            assert result["sandboxed"], result["probe"]
            assert not (host / "written").exists()
            assert "write=0" not in result["stdout"]
        assert (ws / "formatted").read_text() == "ok\n"
        assert key not in result["stdout"] + result["stderr"]
        assert "OPENAI_API_KEY" not in result["stdout"]
    finally:
        shutil.rmtree(host)


# Issue 35, item 4: with `hooks_sandbox = "off"`, a sandboxed command fed the next
# unsandboxed hook in the same turn, unasked: a payload appended to a hook script kept in
# the workspace, a hook's link repointed, a bare repository planted where a `git status`
# hook then ran its fsmonitor. Each ran outside the sandbox.

YES = ["yes"] * 4  # whatever is asked is allowed: what stops the payload is not a "no"


@pytest.fixture
def mark(who: User):
    path = who.directory("rivulet-mark-")  # under /var/tmp: hidden from the sandbox, the hook's to write
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _script(who: User, path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)
    who.give(path)


def _turn(who: User, ws: Path, command: list[str], shell: str, answers: list[str] = YES,
          hooks_sandbox: str = "off") -> dict:
    return who.drive({"workspace": str(ws), "command": command, "shell": shell, "answers": answers,
                      "hooks_sandbox": hooks_sandbox}, driver=DRIVER)


def _refused(result: dict, what: str) -> None:
    line = next((n for n in result["notes"] if "not run" in n), "")
    assert what in line and "in the workspace" in line and "hooks_sandbox" in line, result["notes"]
    assert "\n" not in line


def test_a_payload_appended_to_a_workspace_hook_script_does_not_run_outside_the_sandbox(who, ws, mark):
    _script(who, ws / "hook.sh", "#!/bin/sh\necho checked\n")
    result = _turn(who, ws, ["./hook.sh"], f"echo 'touch {mark}/pwned' >> hook.sh")
    assert not (mark / "pwned").exists(), "the appended payload ran outside the sandbox"
    _refused(result, "hook.sh")


def test_a_hook_script_in_the_workspace_is_a_protected_path(who, ws):
    _script(who, ws / "hook.sh", "#!/bin/sh\necho checked\n")
    result = _turn(who, ws, ["./hook.sh"], "echo 'touch pwned' >> hook.sh; echo wrote=$?", answers=["no"],
                   hooks_sandbox="workspace-write")
    if who.userns:
        assert result["sandboxed"], result["probe"]
        assert "wrote=0" not in result["output"]
    assert (ws / "hook.sh").read_text() == "#!/bin/sh\necho checked\n", "a sandboxed command changed a hook"


def test_a_repointed_hook_link_does_not_run_outside_the_sandbox(who, ws, mark):
    _script(who, mark / "good.sh", "#!/bin/sh\necho good\n")
    (ws / "hook").symlink_to(mark / "good.sh")
    shell = f"printf '#!/bin/sh\\ntouch {mark}/pwned\\n' > p.sh && chmod +x p.sh && ln -sfn p.sh hook"
    result = _turn(who, ws, ["./hook"], shell)
    assert not (mark / "pwned").exists(), "the repointed link ran the payload outside the sandbox"
    _refused(result, "hook")


@pytest.mark.skipif(not shutil.which("git"), reason="needs git")
def test_a_planted_bare_repository_runs_nothing_in_a_git_status_hook(who, ws, mark):
    plant = (f"git init -q --bare . && git config core.bare false && git config core.worktree \"$PWD\" && "
             f"git config core.fsmonitor 'touch {mark}/pwned; false'")
    result = _turn(who, ws, ["git", "status"], plant)
    assert not (mark / "pwned").exists(), "the planted repository's fsmonitor ran outside the sandbox"
    assert not any("not run" in n for n in result["notes"])  # git itself is not refused: it lies outside
