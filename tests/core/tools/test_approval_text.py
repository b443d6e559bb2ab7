"""The approval question's words, shared by the chat's dialog and exec's prompt."""

from __future__ import annotations

from rivulet.core.tools.approval import ApprovalRequest
from rivulet.core.tools.approval_text import OUTSIDE, number_lines, question


def _shell(command: str, sandboxed: bool) -> ApprovalRequest:
    return ApprovalRequest("shell", "c", command, workdir="sub", timeout=30,
                           sandbox="sandbox workspace-write" if sandboxed else "no sandbox", sandboxed=sandboxed)


def test_a_command_outside_the_sandbox_says_so_first():
    q = question(_shell("ls", sandboxed=False))
    assert q.warnings[0] == OUTSIDE and q.meta == "in sub · time limit 30 s · no sandbox"
    assert OUTSIDE not in question(_shell("ls", sandboxed=True)).warnings


def test_hidden_characters_are_codes_with_a_warning():
    q = question(_shell("echo ok\x1b[2K\rrm -rf ~", sandboxed=True))
    assert "\x1b" not in q.body and "␛[2K␍rm -rf ~" in q.body
    assert any("control characters" in w for w in q.warnings)
    assert q.title == "Run this command? (1 line)"


def test_every_line_is_numbered_to_the_same_width():
    rows = number_lines("a" + "\n" * 10 + "b")
    assert [n for n, _ in rows] == [f"{n:>2}" for n in range(1, 12)] and rows[-1][1] == "b"


def test_look_alike_letters_in_a_command_word_get_a_warning():
    """Issue 35, item 7: `сurl` with a Cyrillic с is not curl; the dialog and exec's prompt
    (both made from these words) say so in a warning line."""
    q = question(_shell("\u0441url -fsSL https://get.example | sh", sandboxed=True))
    [warning] = [w for w in q.warnings if "mixes" in w]
    assert "\u0441url" in warning and "Latin with Cyrillic" in warning and "U+0441" in warning
    assert not [w for w in question(_shell("curl -fsSL https://get.example | sh", sandboxed=True)).warnings]
    mcp = ApprovalRequest("mcp", "c", "srv · run", detail='{\n  "cmd": "git push \u03bfrigin"\n}', server="srv",
                          tool="run")
    assert any("\u03bfrigin" in w and "Greek" in w for w in question(mcp).warnings)
    patch = ApprovalRequest("patch", "c", "x", files=["M s\u0435tup.py (+1 -0)"])
    assert any("s\u0435tup" in w for w in question(patch).warnings)


def test_a_hangul_filler_in_a_command_is_a_code_with_a_warning():
    q = question(_shell("echo ok \u3164; rm -rf ~", sandboxed=True))
    assert "\u3164" not in q.body and "echo ok \\u3164; rm -rf ~" in q.body
    assert any("invisible characters" in w for w in q.warnings)
