"""Issue 26 in a real terminal, as a user does it: ask, approve the command, /undo, read
the question (the diff, and that the command's effects outside the workspace stay),
answer y, and the files are back."""

from __future__ import annotations

from .chat_app import RIVULET, answer_approval, chat_ready
from .tmux import Timeout


def _answer(term, key: str, gone: str) -> None:
    """A dialog ignores answers in its first half second and a loaded machine draws it
    late: press until it closes."""
    for _ in range(10):
        term.send(key)
        try:
            term.wait(lambda s: gone not in s, timeout=3, what="the dialog to close")
            return
        except Timeout:
            continue
    raise AssertionError(f"the dialog never closed on {key}")


def test_ask_approve_undo_and_the_files_are_back(term, server):
    work = term.home / "work"
    (work / "notes.md").write_text("old line\n")
    (work / "run.sh").write_text("echo\n")
    (work / "run.sh").chmod(0o644)
    server.call("shell", {"command": "printf 'new line\\n' > notes.md && printf 'made\\n' > made.txt && "
                                     "chmod 755 run.sh && rm run.sh", "workdir": None, "timeout_ms": 7000,
                          "justification": None, "outside_sandbox": True})
    term.start([*RIVULET, "--base-url", server.base_url, "--approval", "auto"], cwd=work)
    term.wait(chat_ready, what="the chat")
    term.send("change the notes", "Enter")
    term.wait("Run this command?", what="the approval dialog")
    answer_approval(term, "y", "Run this command?")
    term.wait("Done in", what="the turn's end")
    assert (work / "notes.md").read_text() == "new line\n" and (work / "made.txt").exists()
    term.type("/undo")
    term.send("Enter")
    screen = term.wait("Undo the files of turn 1", what="the undo question")
    assert "3 paths to put back" in screen
    assert "cannot be undone" in screen  # the command's effects outside the workspace stay, said plainly
    assert "+old line" in screen and "-new line" in screen
    _answer(term, "y", "Undo the files of turn 1")
    term.wait("Undid turn 1", what="the notice")
    assert (work / "notes.md").read_text() == "old line\n"
    assert not (work / "made.txt").exists() and (work / "run.sh").read_text() == "echo\n"
    assert (work / "run.sh").stat().st_mode & 0o777 == 0o644
