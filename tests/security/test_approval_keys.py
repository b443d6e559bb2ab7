"""Attack: "Yes, always" keyed on the command text alone (issue 21, attack 3).

The same text with `outside_sandbox: true`, or in another `workdir`, then ran unasked,
outside the sandbox; an MCP "always" keyed on the first 100 characters of the tool's
name leaked to a destructive tool whose name shares that prefix."""

from __future__ import annotations

import json

import pytest
from helpers.calls import Scripted, fn_call

from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.mcp_client import McpTool
from rivulet.core.tools.router import AgentTools, ToolSettings


def _shell(n: int, command: str, **args: object) -> dict:
    return fn_call(f"fc_{n}", f"call_{n}", "shell", {"command": command, "workdir": None, "timeout_ms": None,
                                                     "justification": None, **args})


def _sandboxed_tools(tmp_path, approver: Scripted) -> AgentTools:
    (tmp_path / "sub").mkdir()
    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="workspace-write"), ApprovalPolicy("ask", approver))
    if not tools.sandbox.active:
        pytest.skip("needs a working bubblewrap sandbox (bwrap cannot run here)")
    return tools


async def test_always_in_the_sandbox_does_not_allow_the_same_text_outside_it(tmp_path):
    approver = Scripted(Decision.ALWAYS, Decision.NO)
    tools = _sandboxed_tools(tmp_path, approver)
    await tools.run(_shell(1, "touch made"))
    assert approver.asked[0].sandboxed
    out = await tools.run(_shell(2, "touch made", outside_sandbox=True))
    assert len(approver.asked) == 2, "the same text outside the sandbox ran unasked"
    assert not approver.asked[1].sandboxed and "declined" in out["output"]


async def test_always_in_one_directory_does_not_allow_another(tmp_path):
    approver = Scripted(Decision.ALWAYS, Decision.NO)
    tools = _sandboxed_tools(tmp_path, approver)
    await tools.run(_shell(1, "touch made"))
    await tools.run(_shell(2, "touch made", workdir="sub"))
    assert len(approver.asked) == 2 and approver.asked[1].workdir == "sub"
    assert not (tmp_path / "sub" / "made").exists()


async def test_always_with_one_time_limit_does_not_allow_a_longer_one(tmp_path):
    approver = Scripted(Decision.ALWAYS, Decision.NO, Decision.NO)
    tools = _sandboxed_tools(tmp_path, approver)
    await tools.run(_shell(1, "true"))
    await tools.run(_shell(2, "true"))  # the very same call: remembered
    assert len(approver.asked) == 1
    await tools.run(_shell(3, "true", timeout_ms=100_000))
    assert len(approver.asked) == 2 and approver.asked[1].timeout == 100


async def test_a_command_outside_the_sandbox_asks_every_time(tmp_path):
    """No sandbox here (or outside_sandbox): "always" answers that one call only."""
    approver = Scripted(Decision.ALWAYS, Decision.NO)
    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="off"), ApprovalPolicy("ask", approver))
    first = await tools.run(_shell(1, "echo hi"))
    assert "hi" in first["output"]
    second = await tools.run(_shell(2, "echo hi"))
    assert len(approver.asked) == 2 and "declined" in second["output"]


async def test_never_ask_still_never_asks(tmp_path):
    approver = Scripted()
    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="off"), ApprovalPolicy("never-ask", approver))
    assert "hi" in (await tools.run(_shell(1, "echo hi")))["output"]
    assert approver.asked == []


def _mcp_request(tool: McpTool, n: int) -> ApprovalRequest:
    # Built as the MCP router builds it (core/tools/mcp_router.py).
    return ApprovalRequest("mcp", f"call_{n}", f"srv · {tool.display}", detail=json.dumps({}), server=tool.server,
                           tool=tool.display, read_only=tool.read_only, destructive=tool.destructive,
                           tool_id=tool.tool)


async def test_mcp_always_is_keyed_on_the_exact_tool_not_a_prefix():
    prefix = "x" * 100
    safe = McpTool("srv__a", "srv", prefix + "_list", {})
    other = McpTool("srv__b", "srv", prefix + "_delete_everything", {})
    assert safe.display == other.display  # what the question shows is cut alike
    approver = Scripted(Decision.ALWAYS, Decision.NO)
    policy = ApprovalPolicy("ask", approver)
    assert await policy.decide(_mcp_request(safe, 1)) is Decision.ALWAYS
    assert await policy.decide(_mcp_request(safe, 2)) is Decision.YES  # remembered
    assert await policy.decide(_mcp_request(other, 3)) is Decision.NO
    assert len(approver.asked) == 2, "always for one tool allowed another with the same first 100 characters"


async def test_mcp_router_passes_the_exact_tool_name(tmp_path, monkeypatch):
    from rivulet.core.tools.mcp_client import McpManager
    from rivulet.core.tools.mcp_router import McpRouter

    long_name = "y" * 150 + "_drop"
    tool = McpTool("srv__t", "srv", long_name, {})
    router = McpRouter(McpManager([]))
    monkeypatch.setattr(router.manager, "find", lambda name: (type("S", (), {"name": "srv"})(), tool))
    seen: list[ApprovalRequest] = []

    async def decide(call, request, declined):
        seen.append(request)
        return Decision.NO

    await router.run(fn_call("fc_1", "call_1", "srv__t", {}), decide)
    assert seen[0].tool_key() == ("mcp", "srv", long_name) and seen[0].always_key() == ("mcp", "srv", long_name, "{}")


# Issue 35, item 6: "yes for this session" on one MCP call let the same tool run later with
# any arguments (`rm -rf`-like ones too) and no question.

def _router_with(tool: McpTool, monkeypatch):
    from rivulet.core.tools.mcp_client import McpManager
    from rivulet.core.tools.mcp_router import McpRouter

    router = McpRouter(McpManager([]))
    monkeypatch.setattr(router.manager, "find", lambda name: (type("S", (), {"name": "srv", "state": "stopped",
                                                                             "session": None, "error": None})(), tool))
    return router


async def _through_router(router, policy: ApprovalPolicy, n: int, arguments: str) -> Decision:
    """One call as the model sends it, through the router and the policy (the server is
    stopped: what matters is whether the user was asked)."""
    decisions: list[Decision] = []

    async def decide(call, request, declined):
        decisions.append(await policy.decide(request))
        return decisions[-1]

    await router.run({"type": "function_call", "call_id": f"call_{n}", "name": "srv__fs", "arguments": arguments},
                     decide)
    return decisions[0]


async def test_mcp_always_is_keyed_on_the_tool_and_its_exact_arguments(monkeypatch):
    router = _router_with(McpTool("srv__fs", "srv", "fs", {}), monkeypatch)
    approver = Scripted(Decision.ALWAYS, Decision.NO, Decision.NO)
    policy = ApprovalPolicy("ask", approver)
    assert await _through_router(router, policy, 1, '{"path": "build", "recursive": true}') is Decision.ALWAYS
    # The same arguments, in another order and spacing: the same call, not asked again.
    assert await _through_router(router, policy, 2, '{"recursive":true,"path":"build"}') is Decision.YES
    assert len(approver.asked) == 1
    # Other arguments: asked again, and refused.
    assert await _through_router(router, policy, 3, '{"path": "/", "recursive": true}') is Decision.NO
    assert await _through_router(router, policy, 4, '{"path": "build", "recursive": true, "force": 1}') is Decision.NO
    assert len(approver.asked) == 3, "always for one call's arguments allowed other arguments"


async def test_always_for_the_tool_is_a_separate_choice_that_allows_any_arguments(monkeypatch):
    router = _router_with(McpTool("srv__fs", "srv", "fs", {}), monkeypatch)
    approver = Scripted(Decision.ALWAYS_TOOL)
    policy = ApprovalPolicy("ask", approver)
    assert await _through_router(router, policy, 1, '{"path": "build"}') is Decision.ALWAYS
    assert await _through_router(router, policy, 2, '{"path": "/"}') is Decision.YES
    assert len(approver.asked) == 1


async def test_always_for_the_tool_answers_a_destructive_tool_only_once():
    tool = McpTool("srv__wipe", "srv", "wipe", {}, destructive=True)
    approver = Scripted(Decision.ALWAYS_TOOL, Decision.NO)
    policy = ApprovalPolicy("ask", approver)
    assert await policy.decide(_mcp_request(tool, 1)) is Decision.YES
    assert await policy.decide(_mcp_request(tool, 2)) is Decision.NO
    assert len(approver.asked) == 2


async def test_always_for_the_tool_on_a_command_is_only_that_command(tmp_path):
    """A front end that answers a shell question with the MCP-only choice allows no more
    than "always" does: that exact command."""
    approver = Scripted(Decision.ALWAYS_TOOL, Decision.NO)
    policy = ApprovalPolicy("ask", approver)
    boxed = {"workdir": ".", "timeout": 10.0, "sandboxed": True}
    assert await policy.decide(ApprovalRequest("shell", "c1", "ls", **boxed)) is Decision.ALWAYS
    assert await policy.decide(ApprovalRequest("shell", "c2", "ls", **boxed)) is Decision.YES
    assert await policy.decide(ApprovalRequest("shell", "c3", "rm -rf .", **boxed)) is Decision.NO


async def test_a_remote_mcp_always_is_keyed_on_its_exact_arguments():
    from rivulet.core.tools import hosted_approvals

    def item(n: int, arguments: str) -> dict:
        return {"type": "mcp_approval_request", "id": f"mcpr_{n}", "server_label": "fs", "name": "run",
                "arguments": arguments}

    approver = Scripted(Decision.ALWAYS, Decision.NO)
    policy = ApprovalPolicy("ask", approver)
    assert await hosted_approvals.decide(policy, item(1, '{"cmd": "ls"}')) == "yes"
    assert await hosted_approvals.decide(policy, item(2, '{"cmd": "ls"}')) == "yes"
    assert await hosted_approvals.decide(policy, item(3, '{"cmd": "rm -rf ~"}')) == "no"
    assert len(approver.asked) == 2
