"""Where the protected-path guard meets the question and the turn lock: the walk that a
command's changes are compared against is taken after the user answers (and after
another rivulet's turn lets the workspace go), so what the user, or that turn, changed
while the question waited is never taken for the command's, asked about or undone."""

from __future__ import annotations

from pathlib import Path

from helpers.calls import fn_call

from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.router import AgentTools, ToolSettings

USERS = '{"tasks": ["the user\'s own, edited while the question was open"]}\n'


async def test_what_changes_while_the_question_waits_is_not_the_commands(tmp_path: Path):
    (tmp_path / ".vscode").mkdir()
    tasks = tmp_path / ".vscode" / "tasks.json"
    tasks.write_text('{"tasks": []}\n')
    asked: list[ApprovalRequest] = []

    async def user(request: ApprovalRequest) -> Decision:
        asked.append(request)
        if len(asked) == 1:  # the user edits the file in their editor before answering
            tasks.write_text(USERS)
        return Decision.YES if len(asked) == 1 else Decision.NO

    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="workspace-write"), ApprovalPolicy("ask", user))
    assert tools.sandbox.active, "the bubblewrap sandbox is needed here (scripts/setup --with-peers installs it)"
    out = await tools.run(fn_call("fc_1", "call_1", "shell", {"command": "echo hi"}))
    assert "Exit code: 0" in str(out["output"])
    assert [r.title for r in asked] == ["echo hi"]  # no second question about .vscode
    assert tasks.read_text() == USERS  # and the user's edit was not undone
    assert "undid" not in str(out["output"])


async def test_the_question_about_what_a_command_wrote_says_so(tmp_path: Path):
    from rivulet.core.tools.approval_text import question

    asked: list[ApprovalRequest] = []

    async def user(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision.YES if len(asked) == 1 else Decision.NO

    tools = AgentTools(ToolSettings(workspace=tmp_path, sandbox="workspace-write"), ApprovalPolicy("ask", user))
    assert tools.sandbox.active
    await tools.run(fn_call("fc_1", "call_1", "shell", {"command": "mkdir .vscode && echo '{}' > .vscode/tasks.json"}))
    assert len(asked) == 2 and question(asked[1]).ask == "Keep what the command wrote"  # not "Apply this patch"
    assert not (tmp_path / ".vscode").exists()
