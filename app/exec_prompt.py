"""exec's approval question on the terminal: what the chat's dialog shows, as plain
lines (core/tools/approval_text.py makes both). The terminal scrolls, so what is
approved comes first, every line numbered, and the line count, warnings (OUTSIDE THE
SANDBOX, hidden characters), directory and time limit come last, just above the answer."""

from __future__ import annotations

from rivulet.core.sanitize import one_row, sanitize
from rivulet.core.tools.approval import ApprovalRequest
from rivulet.core.tools.approval_text import number_lines, question

ANSWERS = "[y]es / [a]lways / [n]o / [s]top, then Enter"  # a line is read: say so (issue 42.7)


def question_text(request: ApprovalRequest) -> str:
    """The whole question, ending in the prompt for the answer."""
    q = question(request, where="above")
    out = ["", "─" * 40]
    if request.subagent:  # a subagent asks (issue 41): which one
        out.insert(1, f"agent {one_row(request.subagent)!r} asks:")
    if q.numbered:
        out += [f"{n} │ {line}" for n, line in number_lines(q.body)]
    else:  # a patch: its files, then its whole diff
        out += [q.body, sanitize(request.detail).rstrip("\n")]
    out.append("─" * 40)
    out += [f"⚠ {w}" for w in q.warnings]
    if q.meta:
        out.append(q.meta)
    if request.reason and request.kind != "mcp":
        out.append(f"why: {sanitize(request.reason)}")
    shown = ", all shown above" if q.numbered and q.body.count("\n") else ""
    out.append(f"rivulet: {q.ask} ({q.count}{shown})? {ANSWERS}: ")
    return "\n".join(out)
