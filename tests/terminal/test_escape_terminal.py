"""Esc closes every picker, view and popup above the chat, in a real terminal (tmux), and
the keys go back to the composer: the next text typed lands there, not in a picker whose
Enter would pick an option (issue 25: /effort was set to "minimal" by accident)."""

from __future__ import annotations

import pytest

from .chat_app import RIVULET, chat_ready
from .test_input import composer_lines
from .test_slash_terminal import status_row

# (how to open it, what it shows while open)
SCREENS = [
    ("/effort", "Reasoning effort for the next requests"),
    ("/theme", "enter: pick · esc: cancel"),
    ("/sandbox", "Sandbox for commands"),
    ("/approval", "Approval policy (this run)"),
    ("/model", "Model for the next requests"),
    ("/copy", "enter: pick · esc: cancel"),
    ("/export", "Export the session as"),
    ("/resume", "Resume which session?"),
    ("/diff", "Turns that changed files"),  # the list of turns (issue 26), each with its diff
    ("/inspect", "committed items"),
    ("/mcp", "MCP servers  (esc to close)"),
    ("C-p", "Search for commands"),
]


def open_screen(term, how: str) -> None:
    if how.startswith("/"):
        term.type(how)
        term.wait(lambda s: composer_lines(s)[:1] == [how], what=f"{how} typed")
        term.send("Enter")
    else:
        term.send(how)


@pytest.mark.parametrize("how,shown", SCREENS, ids=[h for h, _ in SCREENS])
def test_escape_closes_it_and_the_composer_has_the_keys(term, server, how, shown):
    server.list_models("gpt-test-a", "gpt-test-b")
    # An answer with a code block (/copy then asks which), in a saved session (/export).
    server.answer_with(lambda prompt: f"ECHO[{prompt}]END\n\n```\ncode\n```")
    term.start([*RIVULET, "--base-url", server.base_url, "--model", "gpt-test-a"], cwd=term.home / "work")
    term.wait(chat_ready, what="the chat")
    sent = ["hello"]
    if how == "/resume":  # a second session: /resume lists the others
        term.send("hello", "Enter")
        term.wait("ECHO[hello]END", what="the first answer")
        term.type("/new")
        term.send("Enter")
        term.wait(lambda s: "ECHO[hello]END" not in s, what="a new conversation")
        sent.append("hello")
    term.send("hello", "Enter")
    term.wait("ECHO[hello]END", what="the answer")
    open_screen(term, how)
    term.wait(shown, what=f"{how} open")
    term.send("Escape")
    term.wait(lambda s: shown not in s, what=f"{how} closed by Esc")
    term.type("zq")
    term.send("Enter")  # had the picker kept the keys, this Enter would pick an option
    term.wait("ECHO[zq]END", what="the typed text sent from the composer")
    assert server.prompts == [*sent, "zq"]
    assert "gpt-test-a" in status_row(term.screen())  # nothing was picked
