"""Issue 41 in `rivulet --plain`, in a real terminal at 80×24: a subagent is a line when it
starts, one per tool call and one when it ends; its approval question says which subagent
asks, and the answer typed there reaches it."""

from __future__ import annotations

from helpers.agent_server import DelegatingServer

from .chat_app import RIVULET
from .test_plain_terminal import at_prompt, full_history, wait_prompt


def test_plain_mode_says_each_subagent_event_and_labels_its_question(term):
    term.width, term.height = 80, 24
    work = term.home / "work"
    with DelegatingServer("delegate it", "make a note", name="noter", command="echo hi | tee note.txt") as server:
        term.start([*RIVULET, "--plain", "--base-url", server.base_url, "--approval", "ask", "-c", "sandbox=\"off\""],
                   env={"RIVULET_SESSIONS_DIR": str(term.home / "s")}, cwd=work)
        wait_prompt(term)
        term.type("delegate it")
        term.send("Enter")
        screen = term.wait("[y]es / [a]lways", what="the subagent's approval question")
        assert "agent 'noter' asks:" in screen and "echo hi | tee note.txt" in screen
        term.send("y", "Enter")
        term.wait(lambda sc: "all done" in sc and at_prompt(sc), what="the parent's answer")
        assert (work / "note.txt").read_text() == "hi\n"
        rows = [line.rstrip() for line in full_history(term).splitlines()]
        said = [row for row in rows if row.startswith("agent 'noter'")]
        assert said == ["agent 'noter' started: make a note", "agent 'noter' → shell: echo hi | tee note.txt",
                        "agent 'noter' asks:", "agent 'noter' completed"]
        assert all(len(row) <= 80 for row in rows)
        term.send("C-d")
        assert term.wait_exit() == 0
    assert "Traceback" not in full_history(term)
