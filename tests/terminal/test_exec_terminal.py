"""`rivulet exec` on a real terminal: the approval prompt, and a reader that leaves."""

from __future__ import annotations

import shlex

import pytest

from .chat_app import RIVULET

PADDED = "echo start" + "\n" * 60 + "touch x"  # 61 lines: only the last one showed


def test_approval_ask_prompts_on_the_terminal_and_reads_the_answer(term, demo):
    work = term.home / "work"
    term.start([*RIVULET, "--base-url", demo.base_url, "exec", "--approval", "ask", "make a file"], cwd=work)
    term.wait("Apply this patch", what="the approval question")
    assert not (work / "rivulet-demo.txt").exists()  # nothing happens before the answer
    term.wait("[y]es / [a]lways", what="the prompt for the answer")  # (shown once typing has paused)
    term.send("y", "Enter")
    assert term.wait_exit() == 0, term.screen()
    assert (work / "rivulet-demo.txt").read_text().startswith("This file was written by rivulet's demo")
    assert "Traceback" not in term.screen()


def test_approval_no_declines(term, demo):
    work = term.home / "work"
    term.start([*RIVULET, "--base-url", demo.base_url, "exec", "--approval", "ask", "make a file"], cwd=work)
    term.wait("[y]es / [a]lways", what="the prompt for the answer")
    term.send("n", "Enter")
    assert term.wait_exit() == 0, term.screen()
    assert not (work / "rivulet-demo.txt").exists()


@pytest.mark.parametrize("json_flag", [["--json"], []])
def test_a_closed_stdout_ends_quietly(term, json_flag):
    err = term.home / "stderr.txt"
    exec_cmd = shlex.join([*RIVULET, "exec", "--demo", *json_flag, "tell me a story"])
    term.start(["bash", "-c", f'{exec_cmd} 2>{shlex.quote(str(err))} | head -1; echo "status=${{PIPESTATUS[0]}}"'])
    screen = term.wait("status=", what="the pipeline's end")
    assert "status=0" in screen, screen
    assert err.read_text() == ""


@pytest.mark.parametrize("outside", [True, False])
def test_the_prompt_shows_every_line_of_a_padded_command(term, server, outside):
    """Issue 21, attack 5: a command padded with 60 newlines left only `touch x` on screen,
    and nothing said it ran outside the sandbox or how long it may run."""
    work = term.home / "work"
    server.call("shell", {"command": PADDED, "workdir": None, "timeout_ms": 5000, "justification": None,
                          "outside_sandbox": outside})
    term.start([*RIVULET, "--base-url", server.base_url, "exec", "--approval", "ask", "go"], cwd=work)
    screen = term.wait("[y]es / [a]lways", what="the approval question")
    assert "Run this command (61 lines, all shown above)?" in screen  # the count beside the answer
    assert "time limit 5 s" in screen and "in ." in screen
    assert ("OUTSIDE THE SANDBOX" in screen) is (outside or "no sandbox" in screen)
    shown = term.scrollback()
    rows = [line for line in shown.splitlines() if "│" in line]
    assert [row.split("│")[0].strip() for row in rows] == [str(n) for n in range(1, 62)], shown
    assert rows[0].endswith("│ echo start") and rows[-1].endswith("│ touch x")
    term.send("n", "Enter")
    assert term.wait_exit() == 0, term.screen()
    assert not (work / "x").exists()
