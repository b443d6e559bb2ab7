"""Run rivulet's shell tool as root and as an unprivileged user (issue 21).

CI runs as root, where the sandbox used to keep every capability; a developer runs as
themself. `who` names the variant: "root" needs root (CI is root: it never skips
there), "nobody" is `setpriv --reuid=nobody` when the tests run as root, and the
tests' own unprivileged user otherwise (the driver drops to nobody itself, after its
imports: see sandbox_driver.py). Each variant runs tests/security/sandbox_driver.py,
which takes the model's call through the real router, so the sandbox is built for the
uid that runs it. Where that uid cannot make a user namespace, the sandbox cannot hold:
then `sandboxed_or_honest` checks rivulet said so and asked, instead of skipping.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

DRIVER = Path(__file__).with_name("sandbox_driver.py")


@dataclass
class User:
    name: str
    uid: int
    gid: int
    prefix: list[str]  # what runs a command as this user
    userns: bool  # can this user make a user namespace here?
    drop: list[str]  # the driver's arguments that make it drop to this user

    def give(self, path: Path) -> None:
        """Make `path` this user's (tests run as root: the nobody variant needs its own dirs)."""
        if os.geteuid() == 0:
            os.chown(path, self.uid, self.gid)

    def directory(self, prefix: str = "rivulet-sbx-") -> Path:
        """A fresh directory only this user can write, that everyone can enter. Under
        /var/tmp: pytest's tmp_path is private to root."""
        path = Path(tempfile.mkdtemp(prefix=prefix, dir="/var/tmp"))
        path.chmod(0o755)
        self.give(path)
        return path

    def drive(self, job: dict, home: Path | None = None, env: dict | None = None, driver: Path = DRIVER) -> dict:
        environ = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home or "/nonexistent"),
                   "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8", **(env or {})}
        done = subprocess.run([sys.executable, str(driver), *self.drop], input=json.dumps(job),
                              capture_output=True, text=True, timeout=120, env=environ)
        assert done.returncode == 0, f"driver failed as {self.name}: {done.stderr[-2000:]}"
        result = json.loads(done.stdout)
        assert result["uid"] == self.uid
        return result


def user(name: str) -> User:
    if name == "root":
        if os.geteuid() != 0:
            pytest.skip("needs root (CI runs as root)")
        prefix: list[str] = []
        uid = gid = 0
    elif os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv is needed to run the unprivileged variant (util-linux)"
        entry = pwd.getpwnam("nobody")
        uid, gid = entry.pw_uid, entry.pw_gid
        prefix = [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    else:
        uid, gid, prefix = os.getuid(), os.getgid(), []
    probe = subprocess.run([*prefix, "unshare", "-U", "true"], capture_output=True)
    drop = ["--uid", str(uid), "--gid", str(gid)] if prefix else []
    return User(name, uid, gid, prefix, probe.returncode == 0, drop)


def sandboxed_or_honest(who: User, result: dict) -> bool:
    """True when the command ran in the sandbox. Where this user cannot have one, rivulet
    must have said so and asked (under `auto`, with the approver declining)."""
    if who.userns:
        assert result["sandboxed"], f"bwrap could not sandbox {who.name}: {result['probe']}"
        return True
    assert not result["sandboxed"] and "cannot create a sandbox" in result["probe"]
    assert result["asked"] and not result["asked"][0]["sandboxed"], "an unsandboxed command ran unasked"
    assert "did not run" in result["output"]
    return False
