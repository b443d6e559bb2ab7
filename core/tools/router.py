"""The tools rivulet offers the model: apply_patch, shell and current_time.

`AgentTools` is the conversation's `ToolRouter`: it says which tools exist (`specs`)
and runs a committed call (`run`), asking the approval policy first. Every call gets
exactly one output item back, also when it is malformed, refused or fails: the model
is told what happened in words it can act on.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from rivulet.core import items as it
from rivulet.core.config import Settings, effective_patch_tool
from rivulet.core.errors import ConfigError
from rivulet.core.tools import hosted_approvals
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.tools.builtin import BuiltinTools
from rivulet.core.tools.protected import DEFAULT_PROTECTED, made_git_dirs, protection_reason
from rivulet.core.tools.sandbox import Sandbox, SandboxMode
from rivulet.core.tools.turn_diff import TurnDiff, file_diff
from rivulet.core.turn.bus import EventBus, Notice, ToolOutputDelta, TurnDiffUpdated
from rivulet.core.turn.tool_api import StopTurn

if TYPE_CHECKING:  # (the MCP client and the hooks come with a configured server or hook)
    from rivulet.core.checkpoints.turn_lock import TurnLock
    from rivulet.core.checkpoints.turns import TurnCheckpoints
    from rivulet.core.hooks.dispatch import Hooks
    from rivulet.core.tools.editor_files import EditorFiles
    from rivulet.core.tools.mcp_client import McpManager
    from rivulet.core.tools.patch_apply import FileChange
    from rivulet.core.tools.patch_format import FileOp
    from rivulet.core.tools.protected_guard import Guard, Watch
    from rivulet.core.tools.protected_snapshot import Snapshot

# The code that runs a patch, a command or an MCP server's tool is imported with the first
# such call (in each method below): a turn that only answers (most of exec's) never needs it.

PATCH_DESCRIPTION = """Edit files with a patch. Paths are relative to the workspace. Format:
*** Begin Patch
*** Add File: path/new.py
+every line of the new file, each starting with +
*** Update File: path/old.py
*** Move to: path/renamed.py      (optional)
@@ a line just above the change, to find the place (optional)
 unchanged context line (starts with a space)
-removed line
+added line
*** Delete File: path/unused.py
*** End Patch
Give about three context lines around each change; use several @@ hunks for several places."""

# Small local models (a 1.5B Qwen behind llama.cpp) follow the parameter's own
# description more than the tool's: a worked example there turns their one-line
# non-patches into valid ones.
PATCH_INPUT_DESCRIPTION = """The whole patch, one line per line, for example:
*** Begin Patch
*** Add File: hello.txt
+hi
*** End Patch"""

# A Lark grammar for the freeform (custom) tool, so the model's output is a patch
# by construction. Written for rivulet after the format above.
PATCH_GRAMMAR = r"""
start: "*** Begin Patch" LF operation+ "*** End Patch" LF?
operation: add | delete | update
add: "*** Add File: " PATH LF added+
added: "+" TEXT? LF
delete: "*** Delete File: " PATH LF
update: "*** Update File: " PATH LF move? hunk*
move: "*** Move to: " PATH LF
hunk: anchor? hunk_line+ eof?
anchor: "@@" (" " TEXT)? LF
hunk_line: (" " | "-" | "+") TEXT? LF
eof: "*** End of File" LF
PATH: /[^\r\n]+/
TEXT: /[^\r\n]+/
%import common.LF
"""

PatchTool = Literal["custom", "function", "off"]


class ToolSettings(msgspec.Struct, dict=True):
    workspace: Path
    patch_tool: PatchTool = "custom"
    shell: bool = True
    shell_timeout: float = 120.0
    output_limit: int = 16_000  # characters of command output kept for the model
    # Values that must never leave in a tool's output (the API key): commands do not get
    # them in their environment, and any output that holds one anyway has it masked.
    secrets: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = DEFAULT_PROTECTED  # patches touching these always ask
    sandbox: SandboxMode = "off"  # the shell tool's bubblewrap sandbox (config default: workspace-write)
    sandbox_network: bool = False
    # Caps, in characters, checked before anything is parsed or written (a hostile model
    # can send 100 MB of arguments or a 200 MB patch).
    max_tool_args_chars: int = 4_000_000
    max_patch_chars: int = 4_000_000
    image_max_bytes: int = 8 * 1024 * 1024  # an MCP tool's image larger than this is left out
    plan_tool: bool = False  # offer `update_plan` (plan_tool.py): where the front end shows a plan (acp)


class AgentTools:
    def __init__(self, settings: ToolSettings, approvals: ApprovalPolicy, bus: EventBus | None = None,
                 mcp: McpManager | None = None) -> None:
        self.settings = settings
        self.approvals = approvals
        self.bus = bus
        self.workspace = settings.workspace.resolve()
        self.turn_diff = TurnDiff(self.workspace)
        self._builtin = BuiltinTools(plan=settings.plan_tool)
        self.sandbox = Sandbox(settings.sandbox, self.workspace, settings.sandbox_network)
        self._sandbox_told = False
        self._guard: Guard | None = None  # the session's protected paths (made with the first sandboxed call)
        self._guard_of: AgentTools = self  # whose guard: a subagent's router shares its parent's (`share_guard`)
        # MCP servers' tools (started by `start_mcp`), run like ours; stdio servers in our sandbox.
        if mcp is not None:
            from rivulet.core.tools.mcp_router import McpRouter

            mcp.use_sandbox(self.sandbox)
        self.mcp = McpRouter(mcp, output_limit=settings.output_limit, image_limit=settings.image_max_bytes,
                             secrets=settings.secrets) if mcp is not None else None
        self.hooks: Hooks | None = None  # the user's before_tool, after_tool and after_patch hooks
        # The turn's checkpoint (core/checkpoints): taken before the first call that may change files.
        self.checkpoints: TurnCheckpoints | None = None
        # The workspace's turn lock (core/checkpoints/turn_lock.py): one rivulet at a time runs
        # tools that may change its files; with checkpoints on, they hold it (the same lock).
        self.turn_lock: TurnLock | None = None
        # The editor's files (an ACP client's fs methods): patches are planned on its buffers
        # and written through it (core/tools/editor_files.py); None: the files themselves.
        self.editor_files: EditorFiles | None = None

    async def approve_hosted(self, request: dict[str, Any]) -> str:
        """A remote MCP approval request (the API runs the call): yes, no or stop."""
        return await hosted_approvals.decide(self.approvals, request)

    # ---- what the model is offered ---------------------------------------------------

    def specs(self) -> list[dict[str, Any]]:
        specs = list(self._builtin.specs())
        if self.settings.patch_tool == "custom":
            specs.append({"type": "custom", "name": "apply_patch", "description": PATCH_DESCRIPTION,
                          "format": {"type": "grammar", "syntax": "lark", "definition": PATCH_GRAMMAR}})
        elif self.settings.patch_tool == "function":
            specs.append({"type": "function", "name": "apply_patch", "description": PATCH_DESCRIPTION,
                          "parameters": {"type": "object", "additionalProperties": False, "required": ["input"],
                                         "properties": {"input": {"type": "string",
                                                                  "description": PATCH_INPUT_DESCRIPTION}}},
                          "strict": True})
        if self.settings.shell:
            specs.append({
                "type": "function", "name": "shell", "strict": True,
                "description": ("Run a command with bash in the workspace and get its output (stdout and "
                                "stderr together), exit code and duration. The user may have to approve it."),
                "parameters": {
                    "type": "object", "additionalProperties": False,
                    "required": ["command", "workdir", "timeout_ms", "justification", "outside_sandbox"],
                    "properties": {
                        "command": {"type": "string", "description": "The command line, run with bash -c."},
                        "workdir": {"type": ["string", "null"],
                                    "description": "Directory relative to the workspace (default: its root)."},
                        "timeout_ms": {"type": ["integer", "null"], "description": "Time limit in ms."},
                        "justification": {"type": ["string", "null"],
                                          "description": "Why the command is needed, shown to the user."},
                        "outside_sandbox": {"type": ["boolean", "null"],
                                            "description": ("Run outside the sandbox (network, writes outside "
                                                            "the workspace, .git). Always asks the user.")},
                    },
                },
            })
        if self.mcp is not None:
            specs += self.mcp.specs()
        return specs

    async def start_mcp(self) -> None:
        """Start the MCP servers (concurrently; a failed one is only marked failed).
        Their tools never take the name of one of rivulet's own."""
        if self.mcp is not None:
            own = {str(s["name"]) for s in self.specs() if s.get("name")} - {t.name for t in self.mcp.manager.tools()}
            await self.mcp.manager.start(reserved=own)

    def start_turn(self) -> None:
        self.turn_diff.reset()

    def end_turn(self, turn_id: int) -> None:
        if self.checkpoints is not None:
            self.checkpoints.end_turn(turn_id)  # lets the turn lock go once its checkpoint is written
        elif self.turn_lock is not None:
            self.turn_lock.release()

    async def _before_change(self, command: str | None = None) -> None:
        """Before a call that may change files: wait for another rivulet running one in this
        workspace (said once), then the turn's checkpoint (its walk before)."""
        if self.checkpoints is not None:
            await self.checkpoints.before_tool(command)
        elif self.turn_lock is not None:
            await self.turn_lock.hold()

    # ---- running a call ----------------------------------------------------------------

    async def run(self, call: it.Item) -> it.Item:
        """The call's output; a before_tool hook exiting 2 keeps it from running."""
        if self.hooks:
            blocked = await self.hooks.before_tool(call)
            if blocked is not None:
                return _output(call, blocked)
        output = await self._run(call)
        if self.hooks:
            await self.hooks.after_tool(call, output)
        return output

    async def _run(self, call: it.Item) -> it.Item:
        kind, name = call.get("type"), call.get("name")
        size = len(str(call.get("arguments") or "")) + len(str(call.get("input") or ""))
        if size > self.settings.max_tool_args_chars:
            return _output(call, f"error: the call's arguments are {size:,} characters, more than the limit of "
                                 f"{self.settings.max_tool_args_chars:,} (setting max_tool_args_chars); nothing "
                                 "was run. Send something smaller, or split the work.")
        if kind == "custom_tool_call" and name == "apply_patch" and self.settings.patch_tool != "off":
            return await self._patch(call, str(call.get("input") or ""))
        if kind == "function_call" and name == "apply_patch" and self.settings.patch_tool != "off":
            args = _arguments(call)
            if isinstance(args, str):
                return _output(call, args)
            return await self._patch(call, str(args.get("input") or ""))
        if kind == "function_call" and name == "shell" and self.settings.shell:
            args = _arguments(call)
            if isinstance(args, str):
                return _output(call, args)
            return await self._shell(call, args)
        if self.mcp is not None and self.mcp.owns(call):
            server = self.mcp.manager.find(str(name))
            boxed = server is not None and server[0].config.command is not None and self.sandbox.active
            await self._before_change(f"MCP tool {name}")  # a server may write the workspace too
            label = f"MCP tool {name}"
            watch = [self._watch(label) if boxed else None]  # a stdio server writes the workspace too

            async def decide(call: it.Item, request: ApprovalRequest, declined: str) -> Decision:
                decision = await self._decide(call, request, declined)
                if watch[0] is not None:  # again: what changed while the question waited is not the call's
                    self._unwatch(watch[0])
                    watch[0] = self._watch(label)
                return decision

            try:
                done = await self.mcp.run(call, decide)
                return await self._settle(call, watch[0], done)
            finally:
                self._unwatch(watch[0])
        return await self._builtin.run(call)

    async def _decide(self, call: it.Item, request: ApprovalRequest, declined: str) -> Decision:
        decision = await self.approvals.decide(request)
        if decision is Decision.STOP:
            raise StopTurn(_output(call, f"{declined} The user stopped the turn."), f"you declined {request.title}")
        return decision

    async def _patch(self, call: it.Item, text: str) -> it.Item:
        if len(text) > self.settings.max_patch_chars:
            return _output(call, f"error: the patch is {len(text):,} characters, more than the limit of "
                                 f"{self.settings.max_patch_chars:,} (setting max_patch_chars); no file was changed. "
                                 "Split it into smaller patches.")
        from rivulet.core.tools.patch_apply import apply_plan, plan_patch
        from rivulet.core.tools.patch_format import PatchError, parse_patch

        try:
            ops = parse_patch(text)
            changes = plan_patch(ops, self.workspace, await self._held(ops))
        except PatchError as exc:
            return _output(call, f"error: the patch was not applied: {exc}")
        except OSError as exc:
            return _output(call, f"error: the patch was not applied: {exc}")
        rels = [c.path.relative_to(self.workspace).as_posix() for c in changes]
        protected = [why for rel in rels if (why := protection_reason(self.workspace, rel,
                                                                     self.settings.protected_paths))]
        protected += made_git_dirs(self.workspace, [rel for rel, c in zip(rels, changes, strict=True)
                                                    if c.new is not None])
        request = ApprovalRequest("patch", it.call_id(call) or "", _summary(changes), detail=_diff(changes),
                                  files=_file_lines(changes), protected=protected)
        if await self._decide(call, request, "The user declined this patch; no file was changed.") is Decision.NO:
            return _output(call, "The user declined this patch; no file was changed. Do not apply it again "
                                 "unchanged: ask the user what they want instead.")
        await self._before_change()
        for change in changes:
            self.turn_diff.remember(change.path, change.old)
        try:
            if self.editor_files is not None and all(c.new is not None for c in changes):
                for change in changes:  # through the editor: its buffers and its undo see the change
                    await self.editor_files.write(change.path, change.new or "")
            else:  # (a delete or a move has no editor method: the files themselves, all or nothing)
                apply_plan(changes)
        except PatchError as exc:
            return _output(call, f"error: {exc}")
        except OSError as exc:
            return _output(call, f"error: the editor did not write the patch: {exc}")
        guard = self._guard_of._guard
        if protected and guard is not None:  # approved: a command running at once does not ask about it again
            guard.written(rels)
        if self.hooks:  # a formatter sees the files as written, before the model is told
            await self.hooks.after_patch([c.path.relative_to(self.workspace).as_posix() for c in changes
                                          if c.new is not None])
        if self.bus is not None:
            self.bus.publish(TurnDiffUpdated(self.turn_diff.unified(), len(self.turn_diff.files)))
        return _output(call, "Success. Updated the following files:\n" + _summary(changes, sep="\n"))

    async def _held(self, ops: list[FileOp]) -> dict[Path, str]:
        """What the editor holds of the files a patch reads (none without an editor)."""
        if self.editor_files is None:
            return {}
        from rivulet.core.tools.patch_apply import confine
        from rivulet.core.tools.patch_format import OpKind

        held: dict[Path, str] = {}
        for op in ops:
            path = confine(self.workspace, op.path)
            if op.kind is not OpKind.ADD and path not in held:
                text = await self.editor_files.read(path)
                if text is not None:
                    held[path] = text
        return held

    async def _shell(self, call: it.Item, args: dict[str, Any]) -> it.Item:
        command = args.get("command")
        if isinstance(command, list):  # Codex-style argv
            command = " ".join(_quote(str(a)) for a in command)
        if not isinstance(command, str) or not command.strip():
            return _output(call, "error: 'command' must be a non-empty string")
        from rivulet.core.tools.patch_apply import confine
        from rivulet.core.tools.patch_format import PatchError
        from rivulet.core.tools.shell import run_shell

        try:
            cwd = confine(self.workspace, args["workdir"]) if args.get("workdir") not in (None, "", ".") \
                else self.workspace
        except PatchError as exc:
            return _output(call, f"error: bad workdir: {exc}")
        if not cwd.is_dir():
            return _output(call, f"error: workdir {args.get('workdir')!r} is not a directory")
        timeout = self.settings.shell_timeout
        if isinstance(args.get("timeout_ms"), int) and args["timeout_ms"] > 0:
            timeout = min(args["timeout_ms"] / 1000, self.settings.shell_timeout * 10)
        where = cwd.relative_to(self.workspace).as_posix()
        self._tell_if_unsandboxed()
        sandboxed = self.sandbox.active and args.get("outside_sandbox") is not True
        guard = self._protected_guard() if sandboxed else None  # before the question: a walk cut short asks
        request = ApprovalRequest("shell", it.call_id(call) or "", command, detail=f"in {where or '.'}",
                                  reason=args.get("justification") or None, workdir=where or ".", timeout=timeout,
                                  sandbox=self.sandbox.describe() if sandboxed else "no sandbox", sandboxed=sandboxed,
                                  protected=_unchecked(guard))
        if await self._decide(call, request, "The user declined to run this command.") is Decision.NO:
            return _output(call, "The user declined to run this command; it did not run. Do not run it again "
                                 "unchanged: ask the user or find another way.")
        cid = it.call_id(call) or ""

        def show(text: str) -> None:
            if self.bus is not None:
                self.bus.publish(ToolOutputDelta(cid, self._mask(text)))

        await self._before_change(command if sandboxed else f"{command}  (outside the sandbox)")
        # Again: what changed while the question or the turn lock waited is not the command's.
        watch = self._watch(command) if guard is not None else None
        beside = self._beside(f"outside the sandbox: {command}") if guard is None else None
        try:
            result = await run_shell(command, cwd, timeout=timeout, limit=self.settings.output_limit,
                                     on_output=show, secrets=self.settings.secrets,
                                     sandbox=self.sandbox if sandboxed else None,
                                     read_only=watch.before.read_only() if watch is not None else None)
            status = f"timed out after {timeout:g} s (killed)" if result.timed_out else f"{result.exit_code}"
            note = f"\n(output truncated: {result.truncated} characters left out)" if result.truncated else ""
            return await self._settle(call, watch, _output(call, f"Exit code: {status}\nWall time: "
                                                                 f"{result.duration:.1f} seconds\nOutput:\n"
                                                                 f"{self._mask(result.output)}{note}"),
                                      accepted=bool(request.protected))
        finally:
            self._unwatch(watch)
            self._unwatch(beside)

    async def _settle(self, call: it.Item, watch: Watch | None, done: it.Item, accepted: bool = False) -> it.Item:
        """After a sandboxed command or MCP call: what it wrote to protected paths, asked
        about (and undone unless kept); the model is told in the call's output."""
        guard = self._guard_of._guard
        if watch is None or guard is None or self.approvals.policy == "never-ask":
            return done
        from rivulet.core.tools.protected_guard import settle, with_note

        return with_note(done, self._mask(await settle(guard, watch, call, self.approvals, self.bus, done, accepted)))

    def share_guard(self, parent: AgentTools) -> None:
        """A subagent's router: the protected paths are guarded by its parent's guard, so
        that commands running at once are settled one at a time, each change asked about once."""
        self._guard_of = parent._guard_of

    def _the_guard(self) -> Guard:
        from rivulet.core.tools.protected_guard import Guard

        owner = self._guard_of
        if owner._guard is None:
            owner._guard = Guard(self.workspace)
        return owner._guard

    def _protected_guard(self) -> Snapshot | None:
        """The workspace's protected paths before a sandboxed command that may write it
        (with what the session's earlier walks found)."""
        if self.sandbox.mode != "workspace-write":
            return None
        return self._the_guard().take(self.settings.protected_paths)

    def _watch(self, label: str) -> Watch | None:
        """The walk before a sandboxed command (or MCP call) that runs now, until `_unwatch`."""
        if self.sandbox.mode != "workspace-write":
            return None
        return self._the_guard().begin(label, self.settings.protected_paths)

    def _beside(self, label: str) -> Watch | None:
        """A command outside the sandbox while sandboxed ones may run: named by their settles."""
        if self.sandbox.mode != "workspace-write":
            return None
        return self._the_guard().beside(label)

    def _unwatch(self, watch: Watch | None) -> None:
        if watch is not None:
            self._the_guard().end(watch)

    def _tell_if_unsandboxed(self) -> None:
        """Once: the sandbox was asked for and bwrap cannot run here."""
        if self._sandbox_told or self.sandbox.mode == "off" or self.sandbox.active:
            return
        self._sandbox_told = True
        from rivulet.core.tools.sandbox import probe

        if self.bus is not None:
            self.bus.publish(Notice(f"No sandbox: {probe().reason}. Shell commands run unsandboxed, and ask first."))

    def _mask(self, text: str) -> str:
        for secret in self.settings.secrets:
            if secret:
                text = text.replace(secret, "[redacted]")
        return text


def _unchecked(before: Snapshot | None) -> list[str]:
    """Why a command must ask although the policy would not: the walk before it was cut short."""
    if before is None or not before.cut:
        return []
    from rivulet.core.tools.protected_guard import unchecked

    return unchecked(before)


def _arguments(call: it.Item) -> dict[str, Any] | str:
    """The call's JSON arguments, or an error text for the model."""
    try:
        args = json.loads(call.get("arguments") or "{}")
    except ValueError as exc:
        return f"error: the arguments are not valid JSON ({exc}); send them again"
    return args if isinstance(args, dict) else "error: the arguments must be a JSON object"


def _output(call: it.Item, text: str) -> it.Item:
    return {"type": it.CALL_OUTPUT_TYPES[call["type"]], "call_id": it.call_id(call), "output": text}


def _summary(changes: list[FileChange], sep: str = ", ") -> str:
    marks = [("A" if c.old is None else "D" if c.new is None else "M") + " " + c.display for c in changes]
    return sep.join(marks) if marks else "no change"


def _file_lines(changes: list[FileChange]) -> list[str]:
    """Every file of a patch with what happens to it, for the approval question."""
    out = []
    for c in changes:
        diff = file_diff(c.display, c.old, c.new).splitlines()
        plus = sum(1 for line in diff if line.startswith("+") and not line.startswith("+++"))
        minus = sum(1 for line in diff if line.startswith("-") and not line.startswith("---"))
        mark = "A" if c.old is None else "D" if c.new is None else "M"
        out.append(f"{mark} {c.display}  (+{plus} -{minus})")
    return out


def _diff(changes: list[FileChange]) -> str:
    return "".join(file_diff(c.display, c.old, c.new) for c in changes)


def _quote(arg: str) -> str:
    return shlex.quote(arg)


def tool_settings(settings: Settings) -> ToolSettings:
    """The tool router's settings (workspace resolved, must exist)."""
    workspace = Path(settings.workspace or os.getcwd()).expanduser()
    if not workspace.is_dir():
        raise ConfigError(f"workspace {str(workspace)!r} is not a directory")
    key = settings.api_key.get_secret_value() if settings.api_key is not None else ""
    return ToolSettings(workspace=workspace.resolve(), patch_tool=effective_patch_tool(settings),
                        shell=settings.shell_tool,
                        shell_timeout=settings.shell_timeout, secrets=(key,) if len(key) >= 8 else (),
                        protected_paths=(DEFAULT_PROTECTED if settings.protected_paths is None
                                         else tuple(settings.protected_paths)), sandbox=settings.sandbox,
                        sandbox_network=settings.sandbox_network, max_tool_args_chars=settings.max_tool_args_chars,
                        max_patch_chars=settings.max_patch_chars, image_max_bytes=settings.image_max_bytes)
