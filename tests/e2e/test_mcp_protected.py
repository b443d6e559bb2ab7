"""Issue 21: a sandboxed stdio MCP server writes the workspace as a sandboxed command does,
so what one of its calls writes to a protected path is asked about and undone the same
way. The test server's `wipe` tool appends a line to the file $MCP_TEST_MARKS names:
here the workspace's `.envrc`, which direnv would run."""

from __future__ import annotations

import pytest
from helpers.calls import Scripted
from mcp_helpers import stdio_table

from rivulet.core.tools.approval import ApprovalPolicy, Decision
from rivulet.core.tools.mcp_client import McpManager
from rivulet.core.tools.mcp_config import parse_servers
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.sandbox import probe


def _call(name: str, args: str) -> dict:
    return {"type": "function_call", "id": "fc", "call_id": "c1", "name": name, "arguments": args}


@pytest.mark.bwrap
@pytest.mark.skipif(not probe().ok, reason="bubblewrap cannot run here")
async def test_what_a_sandboxed_mcp_call_writes_to_a_protected_path_is_asked_about_and_undone(tmp_path):
    manager = McpManager(parse_servers({"local": stdio_table(tmp_path / ".envrc")}), workspace=tmp_path)
    approver = Scripted(Decision.YES, Decision.NO)  # the destructive call: yes; keeping .envrc: no
    tools = AgentTools(ToolSettings(workspace=tmp_path, shell=False, patch_tool="off", sandbox="workspace-write"),
                       ApprovalPolicy("auto", approver), mcp=manager)
    await tools.start_mcp()
    try:
        out = (await tools.run(_call("local__wipe", '{"target": "x"}')))["output"]
    finally:
        await manager.aclose()
    assert [r.kind for r in approver.asked] == ["mcp", "patch"]
    assert approver.asked[1].protected and ".envrc" in approver.asked[1].title
    assert "wiped x" in out and ".envrc: removed" in out
    assert not (tmp_path / ".envrc").exists()


@pytest.mark.bwrap
@pytest.mark.skipif(not probe().ok, reason="bubblewrap cannot run here")
async def test_what_the_user_changes_while_an_mcp_question_waits_is_not_the_calls(tmp_path):
    """The walk the call is compared against is taken after the question is answered."""
    (tmp_path / ".vscode").mkdir()
    tasks = tmp_path / ".vscode" / "tasks.json"
    tasks.write_text("{}\n")
    manager = McpManager(parse_servers({"local": stdio_table(tmp_path / "marks.txt")}), workspace=tmp_path)
    asked = []

    async def user(request):
        asked.append(request)
        tasks.write_text('{"tasks": ["the user\'s own"]}\n')  # edited in the editor before answering
        return Decision.YES

    tools = AgentTools(ToolSettings(workspace=tmp_path, shell=False, patch_tool="off", sandbox="workspace-write"),
                       ApprovalPolicy("ask", user), mcp=manager)
    await tools.start_mcp()
    try:
        out = (await tools.run(_call("local__wipe", '{"target": "x"}')))["output"]
    finally:
        await manager.aclose()
    assert [r.kind for r in asked] == ["mcp"] and "wiped x" in out
    assert "the user's own" in tasks.read_text()
