"""Attack: AGENTS.md follows symlinks anywhere (issue 21, attack 4).

`AGENTS.md -> ~/.ssh/id_rsa` and `sub/AGENTS.md -> /proc/self/environ` sent a private
key and the environment's tokens to the server as instructions, with no warning. A
sandboxed command can plant such a link itself. Only regular files inside the
repository are read; a refused one is named in one line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers.mock_api import serving, settings

from rivulet.core.turn import project_instructions as pi
from rivulet.core.turn.bus import Notice
from rivulet.core.turn.conversation import Conversation

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- sekrit"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


def test_a_link_to_a_private_key_outside_the_repository_is_refused(tmp_path):
    repo = _repo(tmp_path)
    key = tmp_path / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text(SECRET)
    (repo / "AGENTS.md").symlink_to(key)
    got = pi.load(repo)
    assert got.text is None or SECRET not in got.text, "the private key went out as instructions"
    assert got.files == []
    assert len(got.refused) == 1 and "AGENTS.md" in got.refused[0] and "outside the repository" in got.refused[0]


def test_a_link_to_proc_self_environ_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_hiddenvalue123")
    repo = _repo(tmp_path)
    sub = repo / "sub"
    sub.mkdir()
    (repo / "AGENTS.md").write_text("root rules\n")
    (sub / "AGENTS.md").symlink_to("/proc/self/environ")
    got = pi.load(sub)
    assert got.text is not None and "root rules" in got.text
    assert "ghp_hiddenvalue123" not in got.text and "GITHUB_TOKEN" not in got.text
    assert [f.path.name for f in got.files] == ["AGENTS.md"] and len(got.refused) == 1
    assert str(sub / "AGENTS.md") in got.refused[0]


def test_a_fifo_is_refused_without_hanging(tmp_path):
    repo = _repo(tmp_path)
    os.mkfifo(repo / "AGENTS.override.md")  # nobody ever writes to it: an open would block
    got = pi.load(repo)
    assert got.files == [] and len(got.refused) == 1 and "not a regular file" in got.refused[0]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused(tmp_path):
    repo = _repo(tmp_path)
    (repo / "AGENTS.md").symlink_to("/dev/zero")
    got = pi.load(repo)
    assert got.files == [] and len(got.refused) == 1


def test_a_link_inside_the_repository_is_still_read(tmp_path):
    repo = _repo(tmp_path)
    (repo / "docs").mkdir()
    (repo / "docs" / "agents.md").write_text("shared rules\n")
    (repo / "AGENTS.md").symlink_to(Path("docs") / "agents.md")
    got = pi.load(repo)
    assert got.text is not None and "shared rules" in got.text and got.refused == []


async def test_a_refused_file_is_said_once_as_a_notice(tmp_path):
    repo = _repo(tmp_path)
    (repo / "AGENTS.md").symlink_to("/etc/hostname" if sys.platform != "darwin" else "/etc/hosts")
    conv_settings = settings(workspace=str(repo))
    from rivulet.core.turn.bus import EventBus

    bus = EventBus()
    notices: list[Notice] = []
    bus.subscribe(notices.append, Notice)
    Conversation(conv_settings, serving(), bus)
    await bus.drain()
    assert [n.text for n in notices if "AGENTS.md" in n.text] == [
        f"AGENTS.md: {repo / 'AGENTS.md'} not read: it is a link to outside the repository"]
