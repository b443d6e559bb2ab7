"""Who decides whether a tool may run: the policy, and the user when it asks.

Policies: `ask` (every shell command and every patch asks), `auto-edit` (patches that
stay inside the workspace run without asking; shell commands still ask) and `never-ask`
(for sandboxes and CI). `auto` is auto-edit plus: commands that run in the bubblewrap
sandbox run without asking; one that would leave it (no sandbox here, or the model asks
to run outside it) asks. A patch that touches a protected path (see `protected.py`) asks
under every policy but `never-ask`, and "always" only answers it once.

MCP tools (kind `mcp`) ask like shell commands, with the tool's annotations (hints the
server gives; the user chose to configure that server): a `readOnlyHint` tool runs without
asking under `auto-edit` and `auto`; a `destructiveHint` tool asks under every policy but
`never-ask`, every time ("always" answers only that call). "Always" for any other MCP tool
allows that one tool (the exact server and tool names, never a shortened display name)
for the session.

"Always" for a command is keyed on what runs: its text, its directory, whether it runs
in the sandbox and its time limit; the same text elsewhere, outside the sandbox or with
a longer limit asks again. A command outside the sandbox asks every time (unless
`never-ask`): "always" answers only that call. The question
itself goes to an `Approver`: the app's dialog, a terminal prompt in `exec`, or a
scripted one in tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Literal

import msgspec

Policy = Literal["ask", "auto-edit", "auto", "never-ask"]


class Decision(StrEnum):
    YES = "yes"
    ALWAYS = "always"  # yes, and for the rest of the session
    NO = "no"  # no, and the model continues (it is told)
    STOP = "stop"  # no, and the turn stops


class ApprovalRequest(msgspec.Struct, dict=True):
    kind: Literal["shell", "patch", "mcp"]
    call_id: str
    title: str  # the command, or the files a patch changes
    detail: str = ""  # the patch's diff; the working directory of a command
    reason: str | None = None  # the model's justification, when it gives one
    workdir: str | None = None  # a command's directory, relative to the workspace
    timeout: float | None = None  # a command's time limit in seconds
    files: list[str] = msgspec.field(default_factory=list)  # a patch's files, each as "A path (+3 -0)"
    # Why this must be asked even where the policy would not ask (a protected path).
    protected: list[str] = msgspec.field(default_factory=list)
    # Where a command runs, for the question ("sandbox workspace-write", "no sandbox").
    sandbox: str | None = None
    sandboxed: bool = False  # it really runs inside the bubblewrap sandbox
    # An MCP call: the server, the server's own tool name, and the tool's annotations.
    server: str | None = None
    tool: str | None = None
    read_only: bool = False
    destructive: bool = False
    # An MCP call's exact identity (server and the server's own tool name, uncut): what
    # "always" remembers. `tool` above is only for display (sanitised, cut).
    tool_id: str | None = None

    def always_key(self) -> tuple[object, ...]:
        """What "always" remembers: everything that decides what runs."""
        if self.kind == "mcp":
            return ("mcp", self.server, self.tool_id if self.tool_id is not None else self.tool)
        return ("shell", self.title, self.workdir, self.sandboxed, self.timeout)

    @property
    def remembered(self) -> bool:
        """Whether "always" can allow it again: not outside the sandbox, not a
        protected path, not a destructive MCP tool (those ask every time)."""
        if self.protected or self.destructive:
            return False
        return self.kind != "shell" or self.sandboxed


Approver = Callable[[ApprovalRequest], Awaitable[Decision]]


async def deny_all(request: ApprovalRequest) -> Decision:
    """For a session that cannot ask anybody (headless, no terminal)."""
    return Decision.NO


class ApprovalPolicy(msgspec.Struct, dict=True):
    policy: Policy = "ask"
    approver: Approver = deny_all
    # What "yes for this session" has allowed: every patch, or these exact commands.
    allow_patches: bool = False
    allowed_commands: set[tuple[object, ...]] = msgspec.field(default_factory=set)  # ApprovalRequest.always_key
    allowed_mcp_tools: set[tuple[object, ...]] = msgspec.field(default_factory=set)  # the exact server and tool

    async def decide(self, request: ApprovalRequest) -> Decision:
        if self.policy == "never-ask":
            return Decision.YES
        if request.kind == "mcp":
            return await self._decide_mcp(request)
        if request.protected:  # a write that can make code run later: asked every time
            decision = await self.approver(request)
            return Decision.YES if decision is Decision.ALWAYS else decision
        if request.kind == "patch" and (self.policy in ("auto-edit", "auto") or self.allow_patches):
            return Decision.YES
        if request.kind == "shell" and self.policy == "auto" and request.sandboxed:
            return Decision.YES  # it cannot leave the sandbox: nothing to ask
        if request.kind == "shell" and request.always_key() in self.allowed_commands:
            return Decision.YES
        decision = await self.approver(request)
        if decision is Decision.ALWAYS:
            if request.kind == "patch":
                self.allow_patches = True
            elif not request.remembered:  # outside the sandbox: this call only
                return Decision.YES
            else:
                self.allowed_commands.add(request.always_key())
        return decision

    async def _decide_mcp(self, request: ApprovalRequest) -> Decision:
        key = request.always_key()
        if request.destructive:  # asked every time, as a protected path is
            decision = await self.approver(request)
            return Decision.YES if decision is Decision.ALWAYS else decision
        if request.read_only and self.policy in ("auto-edit", "auto"):
            return Decision.YES
        if key in self.allowed_mcp_tools:
            return Decision.YES
        decision = await self.approver(request)
        if decision is Decision.ALWAYS:
            self.allowed_mcp_tools.add(key)
        return decision
