"""Starting the chat and quitting leaves no session behind; a conversation leaves
one, and the command to resume it is printed on quit; a full disk is said, and saving
resumes once space is freed."""

from __future__ import annotations

from helpers.small_disk import fill, mounted_tmpfs

from rivulet.core.store.session import load_session

from .chat_app import RIVULET, chat_ready


def sessions_in(home):
    return list((home / ".local" / "share" / "rivulet" / "sessions").glob("*.jsonl"))


def test_quitting_without_a_message_writes_no_session(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("C-q")
    assert term.wait_exit() == 0
    assert sessions_in(term.home) == []
    assert "rivulet resume" not in term.scrollback()


def test_a_conversation_is_saved_and_quitting_says_how_to_resume(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    term.send("keep this", "Enter")
    term.wait("ECHO[keep this]END", what="the answer")
    term.send("C-q")
    assert term.wait_exit() == 0
    [saved] = sessions_in(term.home)
    assert f"To resume this session: rivulet resume {saved.stem}" in term.scrollback()


def letters(text: str) -> str:
    """Only the letters and digits: a toast or a long line wraps wherever the width says."""
    return "".join(ch for ch in text if ch.isalnum())


def test_a_full_disk_is_said_once_saving_resumes_when_space_is_freed(term, server):
    sessions = term.home / ".local" / "share" / "rivulet" / "sessions"
    with mounted_tmpfs(sessions) as disk:
        filler = fill(disk)
        term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
        term.wait(chat_ready, what="the chat")
        term.send("while full", "Enter")
        term.wait("ECHO[while full]END", what="the answer")
        term.wait(lambda screen: "couldnotbewritten" in letters(screen), what="the warning that the file is behind")
        filler.unlink()
        term.send("after freeing", "Enter")
        term.wait("ECHO[after freeing]END", what="the second answer")
        term.send("C-q")
        assert term.wait_exit() == 0
        [saved] = sessions_in(term.home)
        prompts = [t.prompt for t in load_session(saved).turns]
        assert prompts == ["while full", "after freeing"]  # main: an empty file, nothing saved
        assert f"To resume this session: rivulet resume {saved.stem}" in term.scrollback()
        assert "not saved" not in term.scrollback()


def test_a_disk_full_to_the_end_is_said_on_quit_instead_of_a_resume_hint(term, server):
    sessions = term.home / ".local" / "share" / "rivulet" / "sessions"
    with mounted_tmpfs(sessions) as disk:
        fill(disk)
        term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work")
        term.wait(chat_ready, what="the chat")
        term.send("never saved", "Enter")
        term.wait("ECHO[never saved]END", what="the answer")
        term.send("C-q")
        assert term.wait_exit() == 0
        out = term.scrollback()
        assert "thisconversationwasnotsaved" in letters(out) and "Nospaceleftondevice" in letters(out)
        assert "rivulet resume" not in out  # main: offers to resume an empty file
        assert sessions_in(term.home) == []  # and leaves it there
