"""Attachments and edit-and-resend in a real terminal: the chip row, a pasted image
path, a bad attachment's one line, Esc Esc on an empty composer."""

from __future__ import annotations

from helpers.images import PNG

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines


def start_chat(term, server, *extra: str):
    work = term.home / "work"
    (work / "notes.txt").write_text("the secret word is plum\n")
    (work / "shot.png").write_bytes(PNG)
    term.start([*RIVULET, "--base-url", server.base_url, *extra], cwd=work)
    term.wait(chat_ready, what="the chat")


def user_parts(body: dict) -> list[dict]:
    return [m for m in body["input"] if m.get("role") == "user"][-1]["content"]


def test_an_at_file_shows_a_chip_and_goes_as_input_text(term, server):
    start_chat(term, server)
    term.type("explain @notes.txt")
    screen = term.wait("notes.txt · 24 B", what="the chip")
    assert "attach" in screen
    term.send("Enter")
    term.wait("[file notes.txt (24 bytes)]", what="the attachment line in the transcript")
    term.wait("Done in", what="the answer (the request has reached the server)")
    parts = user_parts(server.bodies[0])
    assert parts[1]["text"] == '<file path="notes.txt">\nthe secret word is plum\n\n</file>'
    assert "notes.txt · 24 B" not in term.screen()  # sent: the chip row is gone


def test_a_pasted_image_path_attaches_the_image(term, server):
    start_chat(term, server)
    term.paste(str(term.home / "work" / "shot.png"), bracketed=True)
    term.wait("shot.png · 67 B", what="the image chip")
    assert composer_lines(term.screen()) == [""]  # the path was taken, not typed
    term.type("what is this")
    term.send("Enter")
    term.wait("[image shot.png (image/png, 67 bytes)]", what="the image line in the transcript")
    term.wait("Done in", what="the answer (the request has reached the server)")
    parts = user_parts(server.bodies[0])
    assert [p["type"] for p in parts] == ["input_text", "input_text", "input_image", "input_text"]
    assert parts[2]["image_url"].startswith("data:image/png;base64,iVBOR")
    assert "iVBOR" not in term.screen()


def test_a_bad_attachment_is_one_line_and_keeps_the_prompt(term, server):
    start_chat(term, server)
    term.type("read @missing.txt please")
    term.wait("no such file", what="the error chip")
    term.send("Enter")
    term.wait("cannot attach @missing.txt", what="the error toast")  # (the toast wraps the rest)
    rows = composer_lines(term.screen())  # (the toast may cover the composer's right end)
    assert len(rows) == 1 and rows[0].startswith("read @missing.txt please")
    assert server.bodies == []


def test_image_flag_shows_its_chip_before_the_first_message(term, server):
    """Also: --instructions adds to the workspace's AGENTS.md in the chat."""
    (term.home / "work" / "AGENTS.md").write_text("house rule\n")
    start_chat(term, server, "--image", "shot.png", "--instructions", "be brief")
    term.wait("shot.png · 67 B", what="the --image chip")
    term.send("C-l")
    term.wait(lambda s: "shot.png · 67 B" not in s, what="the chip to go")
    term.type("hello")
    term.send("Enter")
    term.wait("ECHO[hello]END", what="the answer")
    assert user_parts(server.bodies[0]) == [{"type": "input_text", "text": "hello"}]
    assert server.bodies[0]["instructions"] == "# AGENTS.md\n\nhouse rule\n\nbe brief"


def test_esc_esc_on_an_empty_composer_edits_the_last_message(term, server):
    start_chat(term, server)
    term.type("first question")
    term.send("Enter")
    term.wait("ECHO[first question]END", what="the answer")
    term.send("Escape", "Escape")  # one write, as a quick double press arrives
    term.wait(lambda s: composer_lines(s) == ["first question"], what="the message back in the composer")
    screen = term.wait(lambda s: "ECHO[first question]END" not in s, what="the cut answer to leave")
    assert any(row.startswith(" Editing ") for row in screen.splitlines()), screen  # the status line
    term.send("C-u")
    term.type("second question")
    term.send("Enter")
    term.wait("ECHO[second question]END", what="the new answer")
    assert [m["role"] for m in server.bodies[1]["input"]] == ["user"]  # the old turn was cut
    assert user_parts(server.bodies[1]) == [{"type": "input_text", "text": "second question"}]


def test_the_at_popup_offers_workspace_files_and_tab_inserts_one(term, server):
    work = term.home / "work"
    (work / ".gitignore").write_text("build/\n")
    (work / "build").mkdir()
    (work / "build" / "notes-copy.txt").write_text("ignored")
    (work / "docs").mkdir()
    (work / "docs" / "release-notes.md").write_text("# notes\n")
    start_chat(term, server)
    term.type("summarise @nots")
    screen = term.wait("docs/release-notes.md", what="the popup")
    assert "notes.txt" in screen and "build/notes-copy.txt" not in screen  # .gitignore honoured
    rows = screen.splitlines()
    first = next(i for i, r in enumerate(rows) if "notes.txt" in r or "release-notes" in r)
    assert "notes.txt" in rows[first]  # the file name match ranks first
    term.send("Tab")
    term.wait(lambda s: composer_lines(s) == ["summarise @notes.txt"], what="the pick in the composer")
    term.wait("notes.txt · 24 B", what="the chip")
    term.send("Enter")
    term.wait("[file notes.txt (24 bytes)]", what="the sent attachment")
    term.wait("Done in", what="the answer (the request has reached the server)")
    assert user_parts(server.bodies[0])[1]["text"].startswith('<file path="notes.txt">')


def test_a_file_name_with_a_newline_is_one_popup_row(term, server):
    """Issue 21: a newline in a file name split its row of the `@` popup in two (the
    second half looked like another file). A FIFO beside it does not hang the popup."""
    import os

    work = term.home / "work"
    (work / "zq-evil\nzq-fake.txt").write_text("x")
    os.mkfifo(work / "zq-pipe")
    start_chat(term, server)
    term.type("look @zq")
    screen = term.wait("zq-pipe", what="the popup")
    rows = [r for r in screen.splitlines() if "zq-" in r]
    assert any("zq-evil␊zq-fake.txt" in r for r in rows), screen
    assert not any(r.strip(" │▎▊").startswith("zq-fake.txt") for r in rows), screen  # never a row of its own
    assert len(rows) == 2, screen
