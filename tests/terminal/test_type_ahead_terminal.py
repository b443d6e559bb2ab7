"""Issue 35, item 5, in a real terminal: someone typing a message when the approval
question opens goes on typing, and their next "a" answered "yes for this session" (the
half-second guard was over before the burst was). Keys typed on, without a pause, from
before the question opened to well after, answer nothing, in the chat's dialog and at
exec's and plain mode's prompt; after a pause a deliberate answer does, and "always" is confirmed."""

from __future__ import annotations

import time

import pytest

from rivulet.app.demo_server import DemoServer
from rivulet.app.tty_answer import CONFIRM, DROPPED
from rivulet.widgets.approval_gate import WAITING

from .chat_app import RIVULET, answer_approval, chat_ready
from .test_plain_terminal import wait_prompt
from .tmux import Terminal

BURST_AFTER = 1.5  # seconds of typing after the question shows: well past the old half second
MESSAGE = "yes and a note, say yes again and add a "  # every answer key, none a pause apart


@pytest.fixture
def slow_demo():
    demo = DemoServer(delay=0.01).start()  # the patch streams for a moment: typing starts before the question
    try:
        yield demo
    finally:
        demo.stop()


def _type_on(term: Terminal, question: str, text: str) -> str:
    """Type `text` over and over, with no pause, until the question has shown for
    BURST_AFTER seconds; the screen then."""
    deadline, shown = time.monotonic() + 45, None
    while shown is None or time.monotonic() - shown < BURST_AFTER:
        assert time.monotonic() < deadline, f"no question:\n{term.screen()}"
        for key in text:  # a key at a time, as fingers do
            term.type(key) if key != "\n" else term.send("Enter")
        if shown is None and question in term.screen():
            shown = time.monotonic()
    return term.screen()


def test_typing_on_across_the_dialog_opening_does_not_answer_it(home, slow_demo):
    term = Terminal(home, width=80, height=24)
    try:
        work = home / "work"
        term.start([*RIVULET, "--base-url", slow_demo.base_url], cwd=work)
        term.wait(chat_ready, what="the chat")
        term.send("make a file", "Enter")
        term.wait("Working", what="the turn under way")  # keys right after Enter would make it a newline
        screen = _type_on(term, "Apply this patch?", MESSAGE)
        assert "Apply this patch?" in screen and WAITING in screen, screen
        assert not (work / "rivulet-demo.txt").exists()
        answer_approval(term, "a", "Apply this patch?")  # after a pause: "a", then "a" again
        term.wait(lambda s: (work / "rivulet-demo.txt").exists(), what="the patch applied")
    finally:
        term.kill()


@pytest.mark.parametrize("mode", ["exec", "plain"])
def test_typing_on_across_the_terminal_prompt_does_not_answer_it(term, slow_demo, mode):
    """exec's prompt, and plain mode's (the same one): lines typed during the turn wait in
    the terminal's input and were read as the answer."""
    work = term.home / "work"
    if mode == "exec":
        term.start([*RIVULET, "--base-url", slow_demo.base_url, "exec", "--approval", "ask", "make a file"], cwd=work)
    else:
        term.start([*RIVULET, "--plain", "--base-url", slow_demo.base_url, "--approval", "ask"], cwd=work,
                   env={"RIVULET_SESSIONS_DIR": str(term.home / "s")})
        wait_prompt(term)
        term.type("make a file")
        term.send("Enter")
        # The turn under way: keys sent with the Enter would be the line editor's, kept for
        # the next message.
        term.wait("thinking:", what="the turn under way")
    screen = _type_on(term, "rivulet-demo.txt  (+3 -0)", "a\ny\n")  # answers typed ahead, and on
    assert DROPPED.strip() in screen and "[y]es / [a]lways" not in screen, screen
    assert not (work / "rivulet-demo.txt").exists()
    term.wait("[y]es / [a]lways", what="the prompt, once typing paused")
    term.send("a", "Enter")
    term.wait(CONFIRM.split("? ")[1].strip(), what="always asked again")
    assert not (work / "rivulet-demo.txt").exists()
    term.send("n", "Enter")
    if mode == "plain":
        wait_prompt(term, "the turn's end")
        term.send("C-d")
    assert term.wait_exit() == 0, term.screen()
    assert not (work / "rivulet-demo.txt").exists()
