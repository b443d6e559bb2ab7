"""AGENTS.md discovery (repository root down to the workspace), its byte budget, and the
request that carries it as `instructions`."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.mock_api import serving, settings
from helpers.streams import simple_text_response

from rivulet.core.turn import project_instructions as pi
from rivulet.core.turn.conversation import Conversation


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """outer/AGENTS.md (above the repo), repo/.git, repo/AGENTS.md, repo/pkg/AGENTS.md,
    repo/other/AGENTS.md (a sibling), workspace repo/pkg/sub (no file of its own)."""
    outer = tmp_path / "outer"
    repo = outer / "repo"
    ws = repo / "pkg" / "sub"
    ws.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "other").mkdir()
    (outer / "AGENTS.md").write_text("OUTSIDE the repository\n")
    (repo / "AGENTS.md").write_text("root rules\n")
    (repo / "pkg" / "AGENTS.md").write_text("pkg rules\n")
    (repo / "other" / "AGENTS.md").write_text("SIBLING rules\n")
    return repo, ws


def test_files_from_the_repository_root_down_to_the_workspace(tmp_path):
    repo, ws = _tree(tmp_path)
    got = pi.load(ws)
    assert got.root == repo.resolve()
    assert [f.path for f in got.files] == [(repo / "AGENTS.md").resolve(), (repo / "pkg" / "AGENTS.md").resolve()]
    assert got.text is not None
    assert got.text.index("root rules") < got.text.index("pkg rules")  # the specific one last
    assert "OUTSIDE" not in got.text and "SIBLING" not in got.text
    assert "# pkg/AGENTS.md" in got.text  # the model is told which directory a file governs
    assert [(f.size, f.used, f.truncated) for f in got.files] == [(11, 11, False), (10, 10, False)]


def test_an_override_file_replaces_agents_md_in_its_directory(tmp_path):
    repo, ws = _tree(tmp_path)
    (repo / "pkg" / "AGENTS.override.md").write_text("override rules\n")
    got = pi.load(ws)
    assert "override rules" in got.text and "pkg rules" not in got.text
    assert got.files[-1].path.name == "AGENTS.override.md"


def test_a_git_file_marks_the_root_too(tmp_path):
    """Worktrees and submodules have a `.git` file, not a directory."""
    repo = tmp_path / "wt"
    (repo / "src").mkdir(parents=True)
    (repo / ".git").write_text("gitdir: /elsewhere\n")
    (repo / "AGENTS.md").write_text("worktree rules")
    assert pi.load(repo / "src").text == "# AGENTS.md\n\nworktree rules"


def test_outside_a_repository_only_the_workspace_is_read(tmp_path):
    ws = tmp_path / "a" / "b"
    ws.mkdir(parents=True)
    (tmp_path / "a" / "AGENTS.md").write_text("parent")
    assert pi.load(ws).files == [] and pi.load(ws).text is None
    (ws / "AGENTS.md").write_text("here")
    got = pi.load(ws)
    assert got.root is None and got.text == "# AGENTS.md\n\nhere"


def test_the_budget_cuts_a_file_and_skips_the_rest(tmp_path):
    repo, ws = _tree(tmp_path)
    (repo / "AGENTS.md").write_text("a" * 30)
    (repo / "pkg" / "AGENTS.md").write_text("b" * 30)
    (ws / "AGENTS.md").write_text("c" * 30)
    got = pi.load(ws, max_bytes=45)
    assert [(f.size, f.used, f.truncated) for f in got.files] == [(30, 30, False), (30, 15, True)]
    assert got.total_bytes == 45
    assert "a" * 30 in got.text and "b" * 15 in got.text and "b" * 16 not in got.text and "c" not in got.text
    assert any("cut to 15 of 30" in w for w in got.warnings)
    assert any("sub/AGENTS.md skipped" in w for w in got.warnings)


def test_a_per_file_cap_and_a_cut_never_splits_a_character(tmp_path):
    repo, ws = _tree(tmp_path)
    (repo / "AGENTS.md").write_text("é" * 10)  # 2 bytes each
    got = pi.load(ws, per_file_max_bytes=5)
    assert got.files[0].used == 4 and got.files[0].truncated
    assert "éé\n" in got.text and "\ufffd" not in got.text
    assert got.files[1].used == 5  # pkg rules, cut by the per-file cap too


def test_zero_bytes_reads_nothing_and_empty_files_are_skipped(tmp_path):
    repo, ws = _tree(tmp_path)
    assert pi.load(ws, max_bytes=0).files == []
    (repo / "pkg" / "AGENTS.md").write_text("  \n")
    assert [f.path.parent for f in pi.load(ws).files] == [repo.resolve()]


def test_configured_instructions_are_appended(tmp_path):
    _repo, ws = _tree(tmp_path)
    got = pi.load(ws, extra="be brief")
    assert got.text.endswith("pkg rules\n\nbe brief")
    assert pi.load(tmp_path, extra="only this").text == "only this"


def test_an_unreadable_file_is_a_warning_not_an_error(tmp_path, monkeypatch):
    repo, ws = _tree(tmp_path)
    (repo / "pkg" / "AGENTS.md").unlink()
    (repo / "pkg" / "AGENTS.md").mkdir()  # not a file: ignored
    real = pi.os.open

    def refuse(path, *args, **kw):  # as root, chmod 000 would not stop the read
        if Path(path).parent == repo.resolve():
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kw)

    monkeypatch.setattr(pi.os, "open", refuse)
    got = pi.load(ws)
    assert got.files == [] and got.text is None
    assert got.warnings == [f"cannot read {(repo / 'AGENTS.md').resolve()}: Permission denied"]


async def test_the_request_carries_agents_md_and_the_configured_instructions(tmp_path):
    _repo, ws = _tree(tmp_path)
    requests = []
    s = settings(workspace=str(ws), instructions="answer in French")
    conv = Conversation(s, serving(simple_text_response("ok"), requests=requests))
    assert [f.path.name for f in conv.project.files] == ["AGENTS.md", "AGENTS.md"]
    await conv.run_turn("hi")
    sent = json.loads(requests[0].content)["instructions"]
    assert sent.startswith("# AGENTS.md\n\nroot rules")
    assert "pkg rules" in sent and sent.endswith("answer in French")


async def test_the_budget_setting_reaches_the_request(tmp_path):
    _repo, ws = _tree(tmp_path)
    requests = []
    conv = Conversation(settings(workspace=str(ws), project_instructions_max_bytes=4),
                        serving(simple_text_response("ok"), requests=requests))
    await conv.run_turn("hi")
    assert json.loads(requests[0].content)["instructions"] == "# AGENTS.md\n\nroot"
    requests.clear()
    conv = Conversation(settings(workspace=str(ws), project_instructions_max_bytes=0),
                        serving(simple_text_response("ok"), requests=requests))
    await conv.run_turn("hi")
    assert "instructions" not in json.loads(requests[0].content)


def test_exec_sends_agents_md_to_a_real_server(aimock, tmp_path):
    """Through the real `rivulet exec` process: aimock's request journal shows the
    instructions it received (aimock turns them into a system message)."""
    import urllib.request

    from helpers.aimock import rivulet

    repo, ws = _tree(tmp_path)
    (repo / "AGENTS.md").write_text(f"journal marker {tmp_path.name}\n")
    proc = rivulet("exec", "say-hello", "--base-url", aimock, "--workspace", str(ws), "--instructions", "be brief")
    assert proc.returncode == 0, proc.stderr
    base = aimock.removesuffix("/v1")
    with urllib.request.urlopen(f"{base}/__aimock/journal?path=/v1/responses") as answer:
        journal = json.loads(answer.read())
    systems = [m["content"] for entry in journal for m in entry["body"].get("messages", []) if m["role"] == "system"]
    mine = [s for s in systems if tmp_path.name in s]
    assert mine == [f"# AGENTS.md\n\njournal marker {tmp_path.name}\n\n# pkg/AGENTS.md\n\npkg rules\n\nbe brief"]
