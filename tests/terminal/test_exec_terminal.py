"""`rivulet exec` on a real terminal: the approval prompt, and a reader that leaves."""

from __future__ import annotations

import shlex

import pytest

from .conftest import RIVULET


def test_approval_ask_prompts_on_the_terminal_and_reads_the_answer(term, demo):
    work = term.home / "work"
    term.start([*RIVULET, "--base-url", demo.base_url, "exec", "--approval", "ask", "make a file"], cwd=work)
    term.wait("apply a patch", what="the approval question")
    assert not (work / "rivulet-demo.txt").exists()  # nothing happens before the answer
    term.send("y", "Enter")
    assert term.wait_exit() == 0, term.screen()
    assert (work / "rivulet-demo.txt").read_text().startswith("This file was written by rivulet's demo")
    assert "Traceback" not in term.screen()


def test_approval_no_declines(term, demo):
    work = term.home / "work"
    term.start([*RIVULET, "--base-url", demo.base_url, "exec", "--approval", "ask", "make a file"], cwd=work)
    term.wait("apply a patch", what="the approval question")
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
