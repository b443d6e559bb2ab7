"""Hints name the command the user has (issue 25): started through scripts/run (which sets
RIVULET_COMMAND), the quit hint and /new say `scripts/run resume …`, not `rivulet resume`,
which is not on their PATH."""

from __future__ import annotations

from .chat_app import RIVULET, chat_ready
from .test_sessions_terminal import sessions_in


def test_quit_and_new_hints_name_scripts_run(term, server):
    term.start([*RIVULET, "--base-url", server.base_url], cwd=term.home / "work",
               env={"RIVULET_COMMAND": "scripts/run"})
    term.wait(chat_ready, what="the chat")
    term.send("first", "Enter")
    term.wait("ECHO[first]END", what="the answer")
    term.type("/new")
    term.send("Enter")
    term.wait(lambda s: "scripts/run resume" in s.replace("\n", " "), what="the /new note naming scripts/run")
    term.send("second", "Enter")
    term.wait("ECHO[second]END", what="the second answer")
    term.send("C-q")
    assert term.wait_exit() == 0
    out = term.scrollback()
    assert "To resume this session: scripts/run resume" in out and "rivulet resume" not in out
    assert len(sessions_in(term.home)) == 2
