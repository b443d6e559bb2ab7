"""The engine's approval questions as `session/request_permission`, answered onto the
question by the engine's own Answering asker (core/tools/approval_event.py: a task per
question, withdrawn by an interrupt, declined if asking fails).

The options are the TUI's: yes; yes always (the policy remembers only this exact call,
or, for a patch, patches for the session, as the chat's dialog says); no; no and stop
the turn. ACP's `reject_always` has no "remember" in rivulet: it stops the turn, and its
name says so."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rivulet.app.acp import tool_calls as tc
from rivulet.core.tools.approval import ApprovalRequest, Decision

if TYPE_CHECKING:
    from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

Ask = Callable[["ToolCallUpdate", "list[PermissionOption]"], Awaitable["RequestPermissionResponse"]]
DECISIONS = {"allow_once": Decision.YES, "allow_always": Decision.ALWAYS, "reject_once": Decision.NO,
             "reject_always": Decision.STOP}


def options(request: ApprovalRequest) -> list[PermissionOption]:
    from acp.schema import PermissionOption

    always = {"patch": "Yes, and every patch this session", "mcp": "Yes, and this exact call again"}.get(
        request.kind, "Yes, and this exact command here again")
    if not request.remembered:  # outside the sandbox, a protected path, a destructive tool: asked every time
        always = "Yes (asked again next time)"
    names = {"allow_once": "Yes", "allow_always": always, "reject_once": "No",
             "reject_always": "No, and stop the turn"}
    return [PermissionOption(option_id=kind, name=name, kind=kind)  # type: ignore[arg-type]
            for kind, name in names.items()]


def tool_call(request: ApprovalRequest) -> ToolCallUpdate:
    """The question's tool call: the call it is about (a subagent's says which subagent asks)."""
    from acp.schema import ToolCallUpdate

    from rivulet.app.acp.subagents import asks

    notes = [line for line in (request.reason and f"Why: {request.reason}",
                               request.sandbox and f"Runs in: {request.sandbox}",
                               *(f"Protected: {p}" for p in request.protected)) if line]
    kind = {"shell": "execute", "patch": "edit"}.get(request.kind, "other")
    # the detail (a patch's diff, a command's directory, a call's arguments) as it is; the
    # notes each a paragraph (the editor draws Markdown)
    content = [*tc.code_content(request.detail, "diff" if request.kind == "patch" else ""),
               *tc.text_content("\n\n".join(notes))]
    title = asks(request.subagent, request.title) if request.subagent else request.title
    return ToolCallUpdate(tool_call_id=request.call_id, title=title, kind=kind,  # type: ignore[arg-type]
                          status="pending", content=content)


def decision(response: RequestPermissionResponse) -> Decision:
    from acp.schema import AllowedOutcome

    outcome = response.outcome
    if isinstance(outcome, AllowedOutcome):
        return DECISIONS.get(outcome.option_id, Decision.NO)
    return Decision.NO  # cancelled: the turn is being cancelled, nothing runs


def asker(ask: Ask, before: Callable[[], Awaitable[None]]) -> Callable[[ApprovalRequest], Awaitable[Decision]]:
    """The question for `Answering`: `before` lets the call's own updates go first."""

    async def question(request: ApprovalRequest) -> Decision:
        await before()
        return decision(await ask(tool_call(request), options(request)))

    return question
