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
