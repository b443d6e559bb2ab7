"""Remote MCP approvals (issue 27): a hosted `mcp` tool with `require_approval` makes
the server stop at an `mcp_approval_request` item; the client answers it in its next
request with an `mcp_approval_response` item, and the server runs (or skips) the call.

The question goes through rivulet's own approval policy and dialog, as an MCP call of
a local server does: the same "always" (that tool with these exact arguments, or the
separate "always for this tool" with any), the same never-ask. The arguments are keyed
on the server's text exactly as it came, not re-encoded: the server runs what it parses
from that text, and another text (even one Python would read as the same object, say with
a key given twice) may mean another call to it.
"""

from __future__ import annotations

from rivulet.core import items as it
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision


def question(item: it.Item) -> ApprovalRequest:
    """The dialog's question: which server, which tool, with what arguments (all shown
    sanitised by the dialog, never run here: the server runs the call)."""
    server, name = str(item.get("server_label") or "?"), str(item.get("name") or "?")
    arguments = str(item.get("arguments") or "")
    return ApprovalRequest("mcp", str(item.get("id")), f"{server} · {name} (run by the API's remote MCP)",
                           detail=arguments, server=f"remote:{server}", tool=name, tool_id=name, arguments=arguments)


async def decide(policy: ApprovalPolicy, item: it.Item) -> str:
    """yes, no, or stop (no, and the turn stops)."""
    decision = await policy.decide(question(item))
    return {Decision.YES: "yes", Decision.ALWAYS: "yes", Decision.STOP: "stop"}.get(decision, "no")
