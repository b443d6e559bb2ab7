"""The chat as the terminal tests start it, and when it is up."""

from __future__ import annotations

import sys

RIVULET = [sys.executable, "-m", "rivulet.app"]


def chat_ready(screen: str) -> bool:
    """The chat is up: the banner and the footer are drawn."""
    return "rivulet ·" in screen and "Quit" in screen


def answer_approval(term, key: str, question: str) -> None:
    """Answer the approval dialog as a person does: once typing has paused (the dialog's
    hint says it is ready), one key; "a" (always) is then confirmed with a second "a".
    Keys sent before that would only restart its wait (issue 35, item 5)."""
    from rivulet.widgets.approval_gate import READY

    term.wait(READY, what="the dialog ready for an answer")
    term.send(key)
    if key == "a":
        term.wait("Confirm always: press a again", what="the dialog asking to confirm")
        term.send("a")
    term.wait(lambda s: question not in s, what="the dialog to close")
