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
`never-ask`, every time ("always" answers only that call). "Always" for any other MCP call
allows that call again for the session: the exact server and tool names (never a shortened
display name) and the exact arguments (their canonical JSON), as a command's text is
keyed; the same tool with other arguments asks again. Only the separate choice "always for
this tool, any arguments" (`ALWAYS_TOOL`) allows the tool whatever its arguments.

"Always" for a command is keyed on what runs: its text, its directory, whether it runs
in the sandbox and its time limit; the same text elsewhere, outside the sandbox or with
a longer limit asks again. A command outside the sandbox asks every time (unless
`never-ask`): "always" answers only that call. The question
itself goes to an `Approver`: the engine's, a request on the bus that the front end
attached answers (core/tools/approval_event.py), or a scripted one in tests."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Literal

import msgspec

Policy = Literal["ask", "auto-edit", "auto", "never-ask"]


class Decision(StrEnum):
    YES = "yes"
    ALWAYS = "always"  # yes, and this exact call again for the rest of the session
    # An MCP call only: yes, and this tool with any arguments for the rest of the session.
    # Elsewhere it means no more than ALWAYS.
    ALWAYS_TOOL = "always-tool"
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
    # An MCP call's arguments exactly as they are sent (`canonical_json` of what runs, or a
    # remote call's own text): with the tool, what "always" remembers. `detail` is for display.
    arguments: str | None = None
    # The question's heading where the kind's own does not fit ("Keep what the command wrote").
    heading: str | None = None
    # The name of the subagent that asks (issue 41; set by BusApprover), for every asker's label.
    subagent: str | None = None

    def tool_key(self) -> tuple[object, ...]:
        """An MCP call's tool, whatever its arguments: what "always for this tool" remembers."""
        return ("mcp", self.server, self.tool_id if self.tool_id is not None else self.tool)

    def always_key(self) -> tuple[object, ...]:
        """What "always" remembers: everything that decides what runs."""
        if self.kind == "mcp":
            return (*self.tool_key(), self.arguments if self.arguments is not None else self.detail)
        return ("shell", self.title, self.workdir, self.sandboxed, self.timeout)

    @property
    def remembered(self) -> bool:
        """Whether "always" can allow it again: not outside the sandbox, not a
        protected path, not a destructive MCP tool (those ask every time)."""
        if self.protected or self.destructive:
            return False
        return self.kind != "shell" or self.sandboxed


def canonical_json(value: object) -> str:
    """One text for one JSON value, whatever its key order or spacing: what an MCP call's
    "always" is keyed on."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
    allowed_mcp_calls: set[tuple[object, ...]] = msgspec.field(default_factory=set)  # ApprovalRequest.always_key
    allowed_mcp_tools: set[tuple[object, ...]] = msgspec.field(default_factory=set)  # ApprovalRequest.tool_key

    async def decide(self, request: ApprovalRequest) -> Decision:
        if self.policy == "never-ask":
            return Decision.YES
        if request.kind == "mcp":
            return await self._decide_mcp(request)
        if request.protected:  # a write that can make code run later: asked every time
            return _once(await self.approver(request))
        if request.kind == "patch" and (self.policy in ("auto-edit", "auto") or self.allow_patches):
            return Decision.YES
        if request.kind == "shell" and self.policy == "auto" and request.sandboxed:
            return Decision.YES  # it cannot leave the sandbox: nothing to ask
        if request.kind == "shell" and request.always_key() in self.allowed_commands:
            return Decision.YES
        decision = await self.approver(request)
        if decision is Decision.ALWAYS_TOOL:  # not an MCP call: no more than "always"
            decision = Decision.ALWAYS
        if decision is Decision.ALWAYS:
            if request.kind == "patch":
                self.allow_patches = True
            elif not request.remembered:  # outside the sandbox: this call only
                return Decision.YES
            else:
                self.allowed_commands.add(request.always_key())
        return decision

    async def _decide_mcp(self, request: ApprovalRequest) -> Decision:
        if request.destructive:  # asked every time, as a protected path is
            return _once(await self.approver(request))
        if request.read_only and self.policy in ("auto-edit", "auto"):
            return Decision.YES
        if request.tool_key() in self.allowed_mcp_tools or request.always_key() in self.allowed_mcp_calls:
            return Decision.YES
        decision = await self.approver(request)
        if decision is Decision.ALWAYS_TOOL:
            self.allowed_mcp_tools.add(request.tool_key())
            return Decision.ALWAYS
        if decision is Decision.ALWAYS:
            self.allowed_mcp_calls.add(request.always_key())
        return decision


def _once(decision: Decision) -> Decision:
    """An answer to a question asked every time: either "always" is a yes for this call."""
    return Decision.YES if decision in (Decision.ALWAYS, Decision.ALWAYS_TOOL) else decision
