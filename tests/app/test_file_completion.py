"""The `@` provider: the token under the cursor, the workspace's files ranked for it,
and a file list read at most every few seconds."""

from __future__ import annotations

from pathlib import Path

from rivulet.app.attach.file_completion import FileCompletion, insertion, token_at


def test_the_token_under_the_cursor():
    assert token_at("look at @src/ap", (0, 15)) == (8, 15, "src/ap")
    assert token_at("@", (0, 1)) == (0, 1, "")
    assert token_at("line one\n  @cli more", (1, 5)) == (2, 6, "cl")  # the span runs to the token's end
    assert token_at("mail me@example.com", (0, 19)) is None  # not after a space
    assert token_at("@done and then", (0, 14)) is None  # the cursor left the token
    assert token_at("@@escaped", (0, 9)) is None
    assert token_at("no at sign", (0, 5)) is None


def test_insertion_quotes_a_path_with_spaces():
    assert insertion("src/app.py") == "@src/app.py "
    assert insertion("my notes.txt") == '@"my notes.txt" '


def test_matches_rank_the_workspace_files_and_reread_them_only_now_and_then(tmp_path: Path):
    reads = []
    files = ["README.md", "app/cli.py", "app/tui.py", "core/config.py"]

    def lister(ws: Path) -> list[str]:
        reads.append(ws)
        return list(files)

    now = [100.0]
    provider = FileCompletion(tmp_path, lister=lister, clock=lambda: now[0])
    found = provider.matches("open @cli", (0, 9))
    assert found is not None and found.paths[0] == "app/cli.py"
    assert (found.start, found.end, found.query) == ((0, 5), (0, 9), "cli")
    files.append("app/cli_new.py")
    assert "app/cli_new.py" not in provider.matches("@cli", (0, 4)).paths  # the list is reused ...
    now[0] += 10
    assert "app/cli_new.py" in provider.matches("@cli", (0, 4)).paths  # ... then read again
    assert len(reads) == 2
    assert provider.matches("@zzzz", (0, 5)) is None
    assert provider.matches("@app/cli.py", (0, 11)) is None  # a whole path: nothing left to pick
    assert provider.matches("plain text", (0, 5)) is None


def test_ignored_files_are_never_offered(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    for rel in ["src/main.py", "build/main.py", "main.log", "docs/main.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    found = FileCompletion(tmp_path).matches("@main", (0, 5))
    assert found is not None and sorted(found.paths) == ["docs/main.md", "src/main.py"]


def test_a_fifo_in_the_workspace_does_not_hang_the_popup(tmp_path):
    """The hint beside a path reads the file's head: a FIFO nobody writes to must not block."""
    import os

    from rivulet.app.attach.file_completion import FileCompletion

    (tmp_path / "pipe.txt").parent.mkdir(exist_ok=True)
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "page.txt").write_text("hello")
    found = FileCompletion(tmp_path, lister=lambda _: ["pipe.txt", "page.txt"]).find("@p", (0, 2))
    assert found is not None
    assert {e.label: e.help for e in found.entries} == {"pipe.txt": "", "page.txt": "5 B"}
