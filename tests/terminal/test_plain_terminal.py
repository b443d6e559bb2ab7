"""`rivulet --plain` in a real terminal (issue 28): the answer is printed into the
terminal's own scrollback (no alternate screen, nothing redrawn), an approval is asked
inline and answered (and /diff, which the demo then names, shows the patch), a session
resumes, and TERM=dumb picks plain mode by itself."""

from __future__ import annotations

import json
import re

from .chat_app import RIVULET
from .stream_server import paragraphs
from .tmux import Terminal


def alternate_screen(term) -> str:
    return term.tmux("display-message", "-p", "-t", "t", "#{alternate_on}").strip()


def at_prompt(screen: str) -> bool:
    """The input prompt is the last thing on the screen: prompt-toolkit reads the keys now
    (a key sent before that may reach a terminal still in line mode, and a Ctrl-D be lost)."""
    return screen.rstrip().endswith("you>")


def wait_prompt(term, what: str = "the prompt") -> str:
    return term.wait(at_prompt, what=what)


def full_history(term) -> str:
    return term.tmux("capture-pane", "-p", "-t", "t", "-S", "-")


def test_a_streamed_answer_stays_in_the_scrollback_at_80_columns(term, server):
    term.width, term.height = 80, 12
    server.answer_with(lambda prompt: paragraphs(30, tag="P"), words_per_second=400)
    env = {"RIVULET_SESSIONS_DIR": str(term.home / "s")}
    term.start([*RIVULET, "--plain", "--base-url", server.base_url], env=env, cwd=term.home / "work")
    wait_prompt(term)
    term.type("tell me thirty things")
    term.send("Enter")
    term.wait(lambda sc: "THE-END" in sc and at_prompt(sc), what="the whole answer, then the prompt")
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
    wait_prompt(term)
    term.type("make a file")
    term.send("Enter")
    screen = term.wait("[y]es / [a]lways", what="the approval question")
    assert "Apply this patch" in screen and "→ apply_patch" in full_history(term)
    assert not (work / "rivulet-demo.txt").exists()
    term.send("y", "Enter")
    term.wait(lambda sc: (work / "rivulet-demo.txt").exists() and at_prompt(sc), what="the patch")
    assert (work / "rivulet-demo.txt").read_text().startswith("This file was written by rivulet's demo")
    said = " ".join(full_history(term).split())  # the demo's next step names plain mode's commands, not keys
    assert "/diff shows everything this turn changed" in said and not re.search(r"ctrl\+[to]\b", said, re.I)
    term.type("/diff")
    term.send("Enter")
    term.wait(lambda sc: "+This file was written by rivulet's demo" in sc and at_prompt(sc), what="/diff's diff")
    term.send("C-d")
    assert term.wait_exit() == 0
    assert "Traceback" not in full_history(term)


def test_a_session_resumes_in_plain_mode(term, server):
    env = {"RIVULET_SESSIONS_DIR": str(term.home / "s")}
    term.start([*RIVULET, "--plain", "--base-url", server.base_url], env=env, cwd=term.home / "work")
    wait_prompt(term)
    term.type("first question")
    term.send("Enter")
    term.wait(lambda sc: "ECHO[first question]END" in sc and at_prompt(sc), what="the first answer")
    term.send("C-d")
    assert term.wait_exit() == 0
    line = next(ln for ln in term.scrollback().splitlines() if "To resume this session" in ln)
    session_id = line.split("rivulet resume ", 1)[1].split()[0]
    again = Terminal(term.home)  # a terminal of its own: the first one's tmux server is still going away
    try:
        again.start([*RIVULET, "resume", session_id, "--plain", "--base-url", server.base_url], env=env,
                    cwd=term.home / "work")
        screen = again.wait(lambda sc: f"resumed session {session_id}" in sc and at_prompt(sc),
                            what="the resumed session")
        assert "you> first question" in screen and "ECHO[first question]END" in screen
        again.type("second question")
        again.send("Enter")
        again.wait(lambda sc: "ECHO[second question]END" in sc and at_prompt(sc), what="the second answer")
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
    screen = wait_prompt(term, "plain mode's prompt")
    assert "/help lists the commands" in screen
    assert alternate_screen(term) == "0"
    term.type("hello")
    term.send("Enter")
    term.wait(lambda sc: 'You asked: "hello"' in sc and at_prompt(sc), what="the answer")
    term.send("C-d")
    assert term.wait_exit() == 0


def test_bang_and_a_saved_prompt_in_plain_mode(term, server):
    prompts = term.home / "prompts"
    prompts.mkdir()
    (prompts / "explain.md").write_text("Explain $1 in $2 words.")
    (term.home / "work" / "data.txt").write_text("marker-4417\n")
    env = {"RIVULET_SESSIONS_DIR": str(term.home / "s"), "RIVULET_PROMPTS_DIR": str(prompts)}
    term.start([*RIVULET, "--plain", "--base-url", server.base_url], env=env, cwd=term.home / "work")
    wait_prompt(term)
    term.type("!cat data.txt")
    term.send("Enter")
    term.wait(lambda sc: "added to your next message" in sc and at_prompt(sc), what="the command's end")
    assert "marker-4417" in term.screen() and not server.bodies  # shown, nothing sent yet
    term.type("what did it print?")
    term.send("Enter")
    term.wait(lambda sc: "what did it print?]END" in sc and at_prompt(sc), what="the answer")
    sent = json.dumps(server.bodies[-1]["input"])
    assert "marker-4417" in sent and "$ cat data.txt" in sent
    term.type('/explain "hooks" ten')
    term.send("Enter")
    term.wait(lambda sc: "ECHO[Explain hooks in ten words.]END" in sc and at_prompt(sc), what="the saved prompt")
    term.send("C-d")
    assert term.wait_exit() == 0


def test_a_pasted_block_alt_enter_and_history_in_plain_mode(term, server):
    env = {"RIVULET_SESSIONS_DIR": str(term.home / "s")}
    term.start([*RIVULET, "--plain", "--base-url", server.base_url], env=env, cwd=term.home / "work")
    wait_prompt(term)
    term.paste("pasted one\npasted two\n", bracketed=True)  # a paste's newlines do not send it
    term.wait("pasted two", what="the paste in the input")
    assert not server.prompts
    term.send("Enter")
    term.wait(lambda sc: "pasted two" in sc and "END" in sc and at_prompt(sc), what="the pasted message's answer")
    assert server.prompts[-1].rstrip("\n") == "pasted one\npasted two"
    term.type("first line")
    term.send("M-Enter")  # Alt+Enter: a new line in the input
    term.type("second line")
    term.send("Enter")
    term.wait(lambda sc: "second line]END" in sc and at_prompt(sc), what="the two-line message's answer")
    assert server.prompts[-1] == "first line\nsecond line"
    term.send("Up")  # the last prompt comes back
    term.wait(lambda sc: sc.rstrip().endswith("]END\nyou> first line\nsecond line"), what="the prompt recalled")
    term.send("Enter")
    term.wait(lambda sc: len(server.prompts) == 3 and at_prompt(sc), what="the recalled prompt's answer")
    assert server.prompts[-1] == "first line\nsecond line"
    term.send("C-d")
    assert term.wait_exit() == 0
