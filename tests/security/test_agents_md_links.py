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
    assert len(got.refused) == 1 and "AGENTS.md" in got.refused[0] and "outside the workspace" in got.refused[0]


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
        f"AGENTS.md: {repo / 'AGENTS.md'} not read: it is a link to outside the workspace"]


# Issue 35, item 3: the workspace inside a larger repository (a monorepo's `app/`, a home
# directory kept as a dotfiles repository). A sandboxed `ln -s ../.env AGENTS.md` pointed
# inside the repository but outside the workspace, and the file went out as instructions.
# Only the workspace's own names may lead anywhere (and only inside it); above it, an
# enclosing repository's AGENTS.md is read at its own path, never through a link.

ENV_SECRET = "OPENAI_API_KEY=sk-monorepo-env-5ecret"


def _monorepo(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "mono"
    ws = repo / "app"
    ws.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".env").write_text(ENV_SECRET + "\n")
    return repo, ws


def test_a_link_to_the_monorepos_env_from_the_workspace_is_refused(tmp_path):
    repo, ws = _monorepo(tmp_path)
    (repo / "AGENTS.md").write_text("repo rules\n")
    (ws / "AGENTS.md").symlink_to("../.env")
    got = pi.load(ws)
    assert got.text is not None and "repo rules" in got.text
    assert ENV_SECRET not in got.text, "the repository's .env went out as instructions"
    assert [f.path.name for f in got.files] == ["AGENTS.md"] and got.files[0].path.parent == repo.resolve()
    assert got.refused == [f"{ws.resolve() / 'AGENTS.md'} not read: it is a link to outside the workspace"]


def test_a_link_to_a_key_in_a_dotfiles_home_is_refused(tmp_path):
    home = tmp_path / "home"
    ws = home / "project"
    ws.mkdir(parents=True)
    (home / ".git").mkdir()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    (ws / "AGENTS.md").symlink_to("../.ssh/id_rsa")
    got = pi.load(ws)
    assert got.text is None and got.files == []
    assert len(got.refused) == 1 and "outside the workspace" in got.refused[0]


def test_a_linked_directory_on_the_way_out_of_the_workspace_is_refused(tmp_path):
    repo, ws = _monorepo(tmp_path)
    (repo / "conf").mkdir()
    (repo / "conf" / "AGENTS.md").write_text(ENV_SECRET)
    (ws / "shared").symlink_to("../conf")  # a directory link that leaves the workspace
    (ws / "AGENTS.md").symlink_to("shared/AGENTS.md")
    got = pi.load(ws)
    assert got.text is None and len(got.refused) == 1 and "outside the workspace" in got.refused[0]


def test_the_enclosing_repositorys_own_file_is_read_only_at_its_own_path(tmp_path):
    repo, ws = _monorepo(tmp_path)
    (repo / "docs").mkdir()
    (repo / "docs" / "agents.md").write_text("linked rules\n")
    (repo / "AGENTS.md").symlink_to("docs/agents.md")  # inside the repository, but a link
    got = pi.load(ws)
    assert got.text is None, "a link above the workspace was followed"
    assert got.refused == [f"{repo.resolve() / 'AGENTS.md'} not read: it is a link, and a file above the workspace "
                           "is read only at its own path"]
    (repo / "AGENTS.md").unlink()
    (repo / "AGENTS.md").write_text("own rules\n")
    assert pi.load(ws).text == "# AGENTS.md\n\nown rules"


def test_a_link_inside_the_workspace_is_read(tmp_path):
    _repo_dir, ws = _monorepo(tmp_path)
    (ws / "docs").mkdir()
    (ws / "docs" / "agents.md").write_text("app rules\n")
    (ws / "AGENTS.md").symlink_to("docs/agents.md")
    got = pi.load(ws)
    assert got.text == "# app/AGENTS.md\n\napp rules" and got.refused == []


def test_a_directory_swapped_for_a_link_after_the_check_is_refused(tmp_path, monkeypatch):
    """The check and the open are apart in time: the open walks the names from the
    workspace's descriptor with O_NOFOLLOW, so a swap in between fails, it is not followed."""
    repo, ws = _monorepo(tmp_path)
    (ws / "docs").mkdir()
    (ws / "docs" / "AGENTS.md").write_text("app rules\n")
    (ws / "AGENTS.md").symlink_to("docs/AGENTS.md")
    (repo / "conf").mkdir()
    (repo / "conf" / "AGENTS.md").write_text(ENV_SECRET)
    checked = pi._target_in_workspace

    def then_swap(workspace: Path, name: str):
        found = checked(workspace, name)
        (ws / "docs" / "AGENTS.md").unlink()
        (ws / "docs").rmdir()
        (ws / "docs").symlink_to("../conf")
        return found

    monkeypatch.setattr(pi, "_target_in_workspace", then_swap)
    got = pi.load(ws)
    assert got.text is None and len(got.refused) == 1 and "outside the workspace" in got.refused[0]


def test_a_refused_line_is_one_sanitised_row(tmp_path):
    repo = tmp_path / "ws\x1b[31m\nfake"
    repo.mkdir()
    (repo / "AGENTS.md").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere").write_text(SECRET)
    got = pi.load(repo)
    assert len(got.refused) == 1 and "\x1b" not in got.refused[0] and "\n" not in got.refused[0]
