"""The pickers at 80x24 (issue 38.6): a row too long for the dialog is one line cut with
"…", never wrapped onto a second line that reads as another choice: the profile picker
(a long model name and URL), the session picker (a long first prompt) and the palette
(a saved prompt with a long description)."""

from __future__ import annotations

import json

from .chat_app import RIVULET, chat_ready
from .tmux import Terminal

URL = "http://127.0.0.1:9/v1/a/long/path/to/the/server/endpoint/that/goes/on/and/on"
PROMPT = "a first prompt long enough to pass the picker's width at eighty columns, ending in ZEBRA"
ABOUT = "Review the staged changes for bugs, missing tests and unclear names, then summarise in QUAGGA"


def _files(home) -> None:
    config = home / ".config" / "rivulet"
    (config / "prompts").mkdir(parents=True)
    (config / "config.toml").write_text(
        f'[profiles.a-profile-with-a-long-name]\nbase_url = "{URL}"\n'
        'model = "qwen2.5-coder-32b-instruct-q4_k_m-with-a-long-file-name.gguf"\n'
        '[profiles.two]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "model-two"\n')
    (config / "prompts" / "review-staged.md").write_text(f"---\ndescription: {ABOUT}\n---\nReview\n")
    sessions = home / ".local" / "share" / "rivulet" / "sessions"
    sessions.mkdir(parents=True)
    records = [{"type": "session", "format": 1, "id": "20260101-120000-abcdef", "created": 1767268800.0,
                "cwd": str(home / "work"), "model": "m", "base_url": "u", "frontend": "chat"},
               {"type": "turn", "turn_id": 1, "event": "started", "prompt": PROMPT, "time": 1767268800.0},
               {"type": "item", "seq": 1, "key": "user-1", "segment": None, "time": 1767268800.0,
                "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROMPT}]}}]
    (sessions / "20260101-120000-abcdef.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _one_row(screen: str, start: str, tail: str) -> str:
    """The screen line where the row starting `start` is: cut with "…", its tail on no line."""
    [row] = [line for line in screen.splitlines() if start in line]
    assert "…" in row and tail not in screen, screen
    return row


def test_long_rows_are_cut_not_wrapped_at_80_columns(home):
    _files(home)
    term = Terminal(home, 80, 24)
    try:
        term.start([*RIVULET, "--demo"], cwd=home / "work")
        term.wait(chat_ready, what="the chat")
        term.type("/profile")
        term.send("Enter")
        screen = term.wait("Profile for the next turn", what="the profile picker")
        _one_row(screen, "a-profile-with-a-long-name", "and/on")
        assert any("two  model-two" in line for line in screen.splitlines())
        term.send("Escape")
        term.wait(lambda s: "Profile for the next turn" not in s, what="the picker to close")
        term.type("/resume")
        term.send("Enter")
        screen = term.wait("Resume which session?", what="the session picker")
        # What tells sessions apart comes first: the prompt shows, its id and size are cut.
        assert "a first prompt long" in _one_row(screen, "2026-01-01", "ZEBRA")
        term.send("Escape")
        term.wait(lambda s: "Resume which session?" not in s, what="the picker to close")
        term.send("C-p")
        term.type("review-staged")
        screen = term.wait(lambda s: s.count("Review the staged") >= 2, what="the prompt in the palette")
        assert all("…" in line for line in screen.splitlines() if "Review the staged" in line)
        assert "QUAGGA" not in screen
    finally:
        term.kill()


def _session_with_an_answer(home, said_in_turn_2: str, more: int = 0) -> None:
    """A second session, whose only mention of the word is its second turn's answer; `more`
    turns after its three, each a few lines (the second turn off the screen at the end)."""
    sessions = home / ".local" / "share" / "rivulet" / "sessions"
    records: list[dict[str, object]] = [
        {"type": "session", "format": 1, "id": "20260201-120000-fedcba", "created": 1769947200.0,
         "cwd": str(home / "work"), "model": "m", "base_url": "u", "frontend": "chat"}]
    later = [(n, f"Answer {n}.\n\nA second paragraph.") for n in range(4, 4 + more)]
    for n, answer in ((1, "Answer one."), (2, said_in_turn_2), (3, "Answer three."), *later):
        records += [{"type": "turn", "turn_id": n, "event": "started", "prompt": f"question {n}", "time": 1769947200.0},
                    {"type": "item", "seq": 2 * n - 1, "key": f"user-{n}", "segment": None, "time": 1769947200.0,
                     "item": {"type": "message", "role": "user", "content": [{"type": "input_text",
                                                                              "text": f"question {n}"}]}},
                    {"type": "item", "seq": 2 * n, "key": f"m{n}", "segment": None, "time": 1769947200.0,
                     "item": {"type": "message", "role": "assistant", "id": f"m{n}",
                              "content": [{"type": "output_text", "text": answer}]}}]
    (sessions / "20260201-120000-fedcba.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_the_session_pickers_search_field_finds_an_answer_and_enter_resumes_it(home):
    """/resume's search field (issue 40): a word said only in an old answer leaves its
    session the one row, with the match marked; Enter resumes it."""
    _files(home)
    _session_with_an_answer(home, "The wildebeest migrates.")
    term = Terminal(home, 80, 24)
    try:
        term.start([*RIVULET, "--demo"], cwd=home / "work")
        term.wait(chat_ready, what="the chat")
        term.type("/resume")
        term.send("Enter")
        term.wait(lambda s: "Resume which session?" in s and "a first prompt long" in s and "question 1" in s,
                  what="the session picker, both sessions")
        term.type("wildebeest")
        screen = term.wait(lambda s: "The «wildebeest» migrates." in s and "a first prompt long" not in s,
                           what="the one session that said it")
        assert "turn 2" in screen and "question 1" not in screen  # the hit's row, not the session's
        term.send("Enter")
        term.wait(lambda s: "Resume which session?" not in s and "The wildebeest migrates." in s,
                  what="the session resumed")
    finally:
        term.kill()


def test_rivulet_resume_searches_and_opens_the_hit_at_its_turn(home):
    """`rivulet resume`'s own picker has the search field too (issue 40): a word said only in
    an old answer leaves its session the one row; Enter opens the chat at that turn, not
    at the session's end."""
    _files(home)
    _session_with_an_answer(home, "The wildebeest migrates.", more=12)
    term = Terminal(home, 80, 24)
    try:
        term.start([*RIVULET, "--demo", "resume"], cwd=home / "work")
        term.wait(lambda s: "Resume which session?" in s and "a first prompt long" in s and "question 1" in s,
                  what="the start-up picker, both sessions")
        term.type("wildebeest")
        term.wait(lambda s: "The «wildebeest» migrates." in s and "a first prompt long" not in s,
                  what="the one session that said it")
        term.send("Enter")
        screen = term.wait(lambda s: "Resume which session?" not in s and "The wildebeest migrates." in s,
                           what="the chat at the hit's turn")
        assert "Answer 15." not in screen  # (the session's end: where a resume opens otherwise)
    finally:
        term.kill()
