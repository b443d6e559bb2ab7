"""exec's approval prompt: what the dialog shows, as plain lines ending in the answers
(the real terminal: tests/terminal/test_exec_terminal.py)."""

from __future__ import annotations

from rivulet.app.exec_prompt import question_text
from rivulet.core.tools.approval import ApprovalRequest
from rivulet.core.tools.approval_text import OUTSIDE


def _shell(command: str, sandboxed: bool) -> ApprovalRequest:
    return ApprovalRequest("shell", "c", command, workdir="sub", timeout=30,
                           sandbox="sandbox workspace-write" if sandboxed else "no sandbox", sandboxed=sandboxed)


def test_the_exec_prompt_ends_with_the_count_and_the_answers():
    text = question_text(_shell("a\nb", sandboxed=False))
    assert text.splitlines()[-1] == "rivulet: Run this command (2 lines, all shown above)? " \
                                    "[y]es / [a]lways / [n]o / [s]top, then Enter: "  # (issue 42.7)
    assert "1 │ a\n2 │ b" in text and f"⚠ {OUTSIDE}" in text
