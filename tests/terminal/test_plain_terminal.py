"""`rivulet --plain` in a real terminal (issue 28): the answer is printed into the
terminal's own scrollback (no alternate screen, nothing redrawn), an approval is asked
inline and answered, a session resumes, and TERM=dumb picks plain mode by itself."""

from __future__ import annotations

import json

from .conftest import RIVULET
from .stream_server import paragraphs
from .tmux import Terminal


def alternate_screen(term) -> str:
    return term.tmux("display-message", "-p", "-t", "t", "#{alternate_on}").strip()


def full_history(term) -> str:
    return term.tmux("capture-pane", "-p", "-t", "t", "-S", "-")


def test_a_streamed_answer_stays_in_the_scrollback_at_80_columns(term, server):
    term.width, term.height = 80, 12
    server.answer_with(lambda prompt: paragraphs(30, tag="P"), words_per_second=400)
    env = {"RIVULET_SESSIONS_DIR": str(term.home / "s")}
    term.start([*RIVULET, "--plain", "--base-url", server.base_url], env=env, cwd=term.home / "work")
    term.wait("you>", what="the prompt")
    term.type("tell me thirty things")
    term.send("Enter")
    term.wait(lambda s: "THE-END" in s and s.rstrip().endswith("you>"), what="the whole answer, then the prompt")
    assert alternate_screen(term) == "0"  # the terminal's normal screen: its own scrollback
    history = full_history(term)
    rows = [line for line in history.splitlines() if line.startswith("P0")]
    assert [r.split()[0] for r in rows] == [f"P{n:03d}" for n in range(1, 31)], history  # each once, in order
    assert all(len(line) <= 80 for line in history.splitlines())
    assert all(line == line.rstrip() for line in history.splitlines() if line.startswith("P0"))
    term.send("C-d")
    assert term.wait_exit() == 0
    assert "To resume this session: rivulet resume" in term.scrollback()


def test_an_approval_is_asked_inline_and_answered(term, demo):
    work = term.home / "work"
    term.start([*RIVULET, "--plain", "--base-url", demo.base_url, "--approval", "ask"], cwd=work,
               env={"RIVULET_SESSIONS_DIR": str(term.home / "s")})
    term.wait("you>", what="the prompt")
    term.type("make a file")
    term.send("Enter")
    screen = term.wait("[y]es / [a]lways", what="the approval question")
    assert "Apply this patch" in screen and "→ apply_patch" in full_history(term)
    assert not (work / "rivulet-demo.txt").exists()
    term.send("y", "Enter")
    term.wait(lambda s: (work / "rivulet-demo.txt").exists() and s.rstrip().endswith("you>"), what="the patch")
    assert (work / "rivulet-demo.txt").read_text().startswith("This file was written by rivulet's demo")
    term.send("C-d")
    assert term.wait_exit() == 0
    assert "Traceback" not in full_history(term)


def test_a_session_resumes_in_plain_mode(term, server):
    env = {"RIVULET_SESSIONS_DIR": str(term.home / "s")}
    term.start([*RIVULET, "--plain", "--base-url", server.base_url], env=env, cwd=term.home / "work")
    term.wait("you>", what="the prompt")
    term.type("first question")
    term.send("Enter")
    term.wait("ECHO[first question]END", what="the first answer")
    term.send("C-d")
    assert term.wait_exit() == 0
    line = next(ln for ln in term.scrollback().splitlines() if "To resume this session" in ln)
    session_id = line.split("rivulet resume ", 1)[1].split()[0]
    again = Terminal(term.home)  # a terminal of its own: the first one's tmux server is still going away
    try:
        again.start([*RIVULET, "resume", session_id, "--plain", "--base-url", server.base_url], env=env,
                    cwd=term.home / "work")
        screen = again.wait(f"resumed session {session_id}", what="the resumed session")
        assert "you> first question" in screen and "ECHO[first question]END" in screen
        again.type("second question")
        again.send("Enter")
        again.wait("ECHO[second question]END", what="the second answer")
        sent = json.dumps(server.bodies[-1]["input"])
        assert "first question" in sent and "second question" in sent  # the same conversation goes on
        again.send("C-d")
        assert again.wait_exit() == 0
    finally:
        again.kill()


def test_term_dumb_picks_plain_mode(term, demo):
    term.start([*RIVULET, "--base-url", demo.base_url], env={"TERM": "dumb",
                                                              "RIVULET_SESSIONS_DIR": str(term.home / "s")},
               cwd=term.home / "work")
    term.wait("/help lists the commands", what="plain mode's banner")
    assert alternate_screen(term) == "0"
    term.type("hello")
    term.send("Enter")
    term.wait('You asked: "hello"', what="the answer")
    term.send("C-d")
    assert term.wait_exit() == 0
