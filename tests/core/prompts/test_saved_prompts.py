"""Saved prompts: arguments, names a built-in holds, the repository's prompts marked and
never over the user's, hostile file names and files; `/init`'s prompt; `!cmd` context."""

from __future__ import annotations

import os

import pytest

from rivulet.core.prompts.expand import expand
from rivulet.core.prompts.files import commands_for, load_prompts, split_front_matter
from rivulet.core.prompts.init_prompt import init_prompt
from rivulet.core.prompts.shell_context import ShellContext, is_shell_command
from rivulet.core.tools.shell import ShellResult


@pytest.fixture
def dirs(tmp_path):
    user, ws = tmp_path / "user", tmp_path / "ws"
    user.mkdir()
    (ws / ".rivulet" / "prompts").mkdir(parents=True)
    return user, ws, ws / ".rivulet" / "prompts"


def test_arguments_fill_the_placeholders():
    body = "Review $1 against $2. All: $ARGUMENTS. Missing: [$3]. Cost: $$5"
    assert expand(body, 'core/x.py "the old branch"') == \
        'Review core/x.py against the old branch. All: core/x.py "the old branch". Missing: []. Cost: $5'
    assert expand("Fix $1", 'it "unclosed') == "Fix it"  # a bad quote: words as typed
    assert expand("no args: $ARGUMENTS.", "") == "no args: ."


def test_a_name_a_builtin_holds_is_reached_as_prompts_name_and_said(dirs):
    user, ws, _ = dirs
    (user / "help.md").write_text("my help")
    (user / "review.md").write_text("review it")
    found = load_prompts(ws, str(user))
    words, clashes = commands_for(found.prompts, {"help", "model"})
    assert set(words) == {"prompts:help", "review"}
    assert clashes == ["help.md (your prompt) has the name of the built-in /help: run it as /prompts:help"]


def test_repository_prompts_are_marked_and_never_take_the_users_name(dirs):
    user, ws, repo = dirs
    (user / "review.md").write_text("mine")
    (repo / "review.md").write_text("the repository's")
    (repo / "release.md").write_text("---\ndescription: cut a release\n---\nRelease $1")
    found = load_prompts(ws, str(user))
    by = {p.name: p for p in found.prompts}
    assert by["review"].body == "mine" and by["review"].label == "your prompt"
    assert by["release"].label == "repository prompt" and by["release"].description == "cut a release"
    assert by["release"].body == "Release $1"
    assert any("review.md skipped: you have a prompt of that name" in s for s in found.skipped)


def test_hostile_file_names_and_files_are_skipped_and_said(dirs, tmp_path):
    user, ws, repo = dirs
    for name in ["evil\x1b[31m.md", "[bold]x[red].md", "-rf.md", ".hidden.md", "a b.md", "ok\n.md"]:
        (repo / name).write_text("x")
    (tmp_path / "secret.txt").write_text("the user's secret")
    os.symlink(tmp_path / "secret.txt", repo / "leak.md")  # a link out of the repository
    os.mkfifo(repo / "fifo.md")  # would block a plain open() forever
    (repo / "big.md").write_text("x" * 70_000)
    (repo / "good.md").write_text("fine")
    found = load_prompts(ws, str(user))
    assert [p.name for p in found.prompts] == ["good"]
    joined = "\n".join(found.skipped)
    assert "leak.md skipped: a symbolic link (not followed)" in joined
    assert "fifo.md skipped: not a regular file" in joined and "big.md skipped" in joined
    assert len(found.skipped) == 9
    assert all("the user's secret" not in s for s in found.skipped)


def test_front_matter_and_a_first_line_describe_a_prompt():
    assert split_front_matter("# Review the diff\nbody") == ("Review the diff", "# Review the diff\nbody")
    assert split_front_matter("---\ndescription: \"x\"\n---\nbody") == ("x", "body")


def test_init_asks_for_a_patch_and_knows_an_existing_file(tmp_path):
    assert "AGENTS.md" in init_prompt(tmp_path) and "apply_patch" in init_prompt(tmp_path)
    assert "already exists" not in init_prompt(tmp_path)
    (tmp_path / "AGENTS.md").write_text("x")
    assert "already exists" in init_prompt(tmp_path)


def test_shell_context_goes_with_the_next_message_once():
    assert is_shell_command("!ls -la") and not is_shell_command("!") and not is_shell_command("!!hi")
    ctx = ShellContext()
    ctx.add("ls", ShellResult(0, "a.txt\n", 0.1), 120)
    sent = ctx.take("what is in a.txt?")
    assert sent.endswith("what is in a.txt?")
    assert "<user_shell_command>\n$ ls\n(exit code 0)\na.txt\n</user_shell_command>" in sent
    assert ctx.take("again") == "again"
