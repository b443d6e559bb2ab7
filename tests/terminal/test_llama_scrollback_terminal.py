"""Scrolled back to an old turn of a chat with a llama.cpp-like server, in a real terminal
at 80x24 (issue 42's field run): the first turn's protocol note shows in that turn (not
under later turns), the wrapped rows of its long prompt keep the bar, and its apply_patch
call (a function call there) shows as its diff, not as JSON."""

from __future__ import annotations

from helpers.canned_server import CannedServer
from helpers.recorded import recording
from helpers.streams import simple_text_response

from .chat_app import RIVULET, chat_ready
from .tmux import Terminal

PROMPT = ("Please add a file named hello.txt that holds the single word hi, using the apply_patch tool "
          "with a proper patch, and then tell me in one short line that it was added to the workspace")


def test_an_old_llama_turn_scrolled_back_to_shows_as_it_did_live(home):
    patch_call = recording("llamacpp_apply_patch_function.sse").body
    answers = [simple_text_response(f"Answer {n}.", f"r{n}", f"m{n}") for n in range(1, 7)]
    with CannedServer(patch_call, *answers) as server:
        term = Terminal(home, 80, 24)
        try:
            term.start([*RIVULET, "--base-url", server.base_url, "--model", "qwen", "--approval", "auto-edit"],
                       cwd=home / "work")
            term.wait(chat_ready, what="the chat")
            term.type(PROMPT)
            term.send("Enter")
            term.wait("Answer 1.", what="turn 1's answer, after its apply_patch call")
            for n in range(2, 6):
                term.type(f"question {n}")
                term.send("Enter")
                term.wait(f"Answer {n}.", what=f"turn {n}")
            term.send("C-Home")
            screen = term.wait("Please add a file", what="the first turn, scrolled back to")
        finally:
            term.kill()
    lines = screen.splitlines()
    top = next(y for y, line in enumerate(lines) if "Please add a file" in line)
    prompt_rows = lines[top:top + 3]
    assert all(line.lstrip().startswith("▌") for line in prompt_rows), screen  # wrapped rows keep the bar
    note = next((y for y, line in enumerate(lines) if "protocol note" in line), -1)
    later = next((y for y, line in enumerate(lines) if "question 2" in line), len(lines))
    assert top < note < later, screen  # the note in its turn
    assert "A hello.txt  +1 -0" in screen and "+hi" in screen, screen  # the patch as a diff
    assert '"input"' not in screen and "Begin Patch" not in screen, screen
