"""One assembly: a ready conversation (the `Engine`) from the settings, for any front end.

The chat (app/tui_start.py), `rivulet --plain` (app/plain/chat.py), `rivulet exec`
(app/exec_run.py), `rivulet doctor` (app/doctor_run.py) and any later front end (ACP) get
their engine here; none constructs one (a test checks it). The recipe, in its order:

1. `prepare(settings, say)`: the tools' settings; an interrupted restore of the workspace
   finished first (core/checkpoints/recovery.py), before anything touches its files; the
   `[mcp_servers]` and `[[hooks]]` tables read (a bad one: ConfigError, one line). Safe off
   the event loop: the chat runs it in its boot thread, exec before it reads `--image` files.
2. `open_session(settings, plan)`: the session writer: a new file made at its first record
   (`NewSession`), a saved session resumed (`ResumeSession`), or none.
3. `open_conversation(ground, front)`: the transport (unless made earlier), the MCP servers,
   the hooks, the agent tools with their approval policy, checkpoints and the workspace's
   turn lock, and the engine over them, on the front end's bus.

What differs between front ends is one typed value, `FrontEnd`: who answers approval
questions (an `Asker` attached to the engine's `BusApprover`; with none, every question is
declined), where the workspace's notes and the MCP servers' notes go (`Notifier`s), and
the bus it listens on. The doctor opens a `Ground` of bare settings: a transport, no
workspace. Heavy parts are imported when used: exec's start imports only what a turn needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec

from rivulet.core.command_name import command_name

if TYPE_CHECKING:
    from collections.abc import Callable

    from rivulet.core.config import Settings
    from rivulet.core.engine import Engine, Notices
    from rivulet.core.hooks.dispatch import Hooks
    from rivulet.core.hooks.spec import LoadedHooks
    from rivulet.core.protocol.context_window import ModelWindows
    from rivulet.core.store.lazy_session import LazySessionWriter
    from rivulet.core.store.session import Session, SessionWriter
    from rivulet.core.tools.approval_event import Asker
    from rivulet.core.tools.editor_files import EditorFiles
    from rivulet.core.tools.mcp_client import McpTool
    from rivulet.core.tools.mcp_config import McpServerConfig
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.bus import EventBus
    from rivulet.core.turn.conversation import Transport
    from rivulet.core.turn.recorder import SessionFile
    from rivulet.core.turn.tool_api import ToolRouter

    Writer = SessionWriter | LazySessionWriter  # what `open_session` makes: a SessionFile with a closing note


class Notifier(Protocol):
    """How a front end shows a note: its text, and how much it matters ("information",
    "warning", "error")."""

    def __call__(self, text: str, severity: str, /) -> None: ...


class FrontEnd(msgspec.Struct, frozen=True, kw_only=True):
    """What differs between front ends: the one value each hands the assembly."""

    name: str  # chat, plain, exec, doctor, acp
    bus: EventBus | None = None  # the bus it listens on, subscribed before anything is published (None: a new one)
    asks: Asker | None = None  # who answers approval questions; None: nobody, each is declined at once
    notes: Notifier | None = None  # the workspace's notes (another rivulet's turn waited for, a turn
    # without a checkpoint); None: a Notice on the bus
    servers: Notifier | None = None  # the MCP servers' notes (one that failed; the wait for them); None: unsaid
    servers_hint: str = msgspec.field(  # where a failed server's stderr is
        default_factory=lambda: f"{command_name()} mcp list --probe shows its stderr")
    on_tools: Callable[[list[McpTool]], None] | None = None  # the servers' tools, once they have started
    files: EditorFiles | None = None  # the editor's files, when patches go through them (an ACP client's fs)


class NewSession(msgspec.Struct, frozen=True):
    """A new session file, made with its first record: a run that sends nothing leaves none."""

    frontend: str = "chat"  # what the file says made it (plain mode records as the chat)
    cwd: str | None = None  # the directory it records (None: this process's; an editor's session: its own)
    session_id: str | None = None  # the id it will have (None: made with the file; an editor names it first)


class ResumeSession(msgspec.Struct, frozen=True):
    """The saved session in `path`, written on (a fork when another process holds it)."""

    path: Path


SessionPlan = NewSession | ResumeSession | None


class Ground(msgspec.Struct, kw_only=True):
    """What a conversation is assembled from: made by `prepare` and `open_session`, or
    given (a replay's tools and transport, a test's)."""

    settings: Settings
    tool_settings: ToolSettings | None = None  # None: no agent tools (the doctor; tools given)
    tools: ToolRouter | None = None  # tools given instead of the agent's (a replay's)
    transport: Transport | None = None  # None: made from the settings by `open_conversation`
    notices: Notices | None = None  # where a transport made earlier reports its fallback
    session: Session | None = None  # a resumed session: its history is the conversation's
    writer: SessionFile | None = None
    windows: ModelWindows | None = None  # the server's context windows, when already known
    mcp_servers: list[McpServerConfig] | None = None  # the [mcp_servers] table read (None: not yet)
    hooks: LoadedHooks | None = None  # the [[hooks]] read (None: not yet); `ignored` is for the front end to say

    def read_tables(self) -> None:
        """Read the [mcp_servers] and [[hooks]] tables, if not yet: ConfigError for a bad one."""
        if self.tool_settings is None or self.tools is not None:
            return  # no agent tools: neither runs
        if self.mcp_servers is None and not self.settings.mcp_servers:
            self.mcp_servers = []  # (no server: their modules are never imported)
        elif self.mcp_servers is None:
            from rivulet.core.tools.mcp_config import parse_servers

            self.mcp_servers = parse_servers(self.settings.mcp_servers)
        if self.hooks is None:
            from rivulet.core.hooks.spec import load_hooks

            self.hooks = load_hooks(self.settings.hooks or None, self.tool_settings.workspace,
                                    self.settings.trusted_workspaces)


def prepare(settings: Settings, say: Callable[[str], None]) -> Ground:
    """The tools' settings, the workspace recovered (the line saying so goes to `say` at
    once: the tables read next may fail), the tables read (ConfigError: one line). Touches
    no event loop: the chat calls it in its boot thread."""
    from rivulet.core.checkpoints.recovery import recover_at_start
    from rivulet.core.tools.router import tool_settings

    tools = tool_settings(settings)
    recovered = recover_at_start(tools.workspace)  # before anything touches the workspace's files
    if recovered:
        say(recovered)
    ground = Ground(settings=settings, tool_settings=tools)
    ground.read_tables()
    return ground


def open_session(settings: Settings, plan: SessionPlan) -> tuple[Session | None, Writer | None]:
    """(the resumed session or None, its writer or None). A resumed file that cannot be
    read raises SessionError (one line) or OSError."""
    if plan is None:
        return None, None
    if isinstance(plan, NewSession):
        from rivulet.core.store.lazy_session import LazySessionWriter

        return None, LazySessionWriter(model=settings.model, base_url=settings.endpoint.safe, frontend=plan.frontend,
                                       cwd=plan.cwd, session_id=plan.session_id)
    from rivulet.core.store.session import load_session, open_for_resume

    writer, session = open_for_resume(plan.path, load_session(plan.path))
    return session, writer


def open_conversation(ground: Ground, front: FrontEnd) -> Engine:
    """The engine for `front` over `ground`: ready for `start()` and `submit()`. ConfigError
    if a table not read yet is bad."""
    from rivulet.core.engine import Engine
    from rivulet.core.turn.bus import EventBus

    ground.read_tables()
    bus = front.bus if front.bus is not None else EventBus()
    agent = ground.tool_settings is not None and ground.tools is None
    mcp = None
    if agent:
        from rivulet.core.tools.mcp_wiring import McpWiring

        mcp = McpWiring(ground.mcp_servers or [])
    engine = Engine(ground.settings, bus=bus, front=front, transport=ground.transport, notices=ground.notices,
                    tools=ground.tools, tool_settings=ground.tool_settings, mcp=mcp, session=ground.session,
                    writer=ground.writer, windows=ground.windows, hooks=_hooks(ground, bus) if agent else None)
    if front.asks is not None:
        engine.approvals.attach(front.asks)
    return engine


def _hooks(ground: Ground, bus: EventBus) -> Hooks | None:
    """The hooks that run what the tables say (None: none, and none of their machinery imported)."""
    if ground.hooks is None or not ground.hooks.hooks or ground.tool_settings is None:
        return None
    from rivulet.core.hooks.wiring import hooks_of

    tools = ground.tool_settings
    return hooks_of(ground.hooks, ground.settings, tools.workspace, bus, tools.secrets)
