"""The engine: one conversation at a time over one transport, one set of tools and MCP
servers, the session writer and the hooks.

It is built in one place, core/assembly.py (`open_conversation`), for every front end: the
chat (app/tui_start.py and /new, /resume), `rivulet --plain`, `rivulet exec`, `rivulet
doctor` and any later one; none of them constructs an `Engine` or a `Conversation`.

Outbound, everything the engine does is a bus event (core/turn/bus.py). Inbound, a front
end calls `submit`, `steer` (a message into the running turn), `interrupt`, `set_model`,
`set_effort`, `new_conversation`, `resume`, `compact` and `answer`. An approval is a
request with an id on the bus: the policy publishes `ApprovalRequested`
(core/tools/approval_event.py) and waits until the front end attached answers it with
`event.answer(decision)` (or `engine.answer(id, decision)`); with no front end attached to
answer, the question is declined at once.

A front end without Textual (a line mode, a test) uses it like this::

    front = FrontEnd(name="lines", asks=answer)     # `answer` gets each ApprovalRequested
    engine = open_conversation(prepare(settings, print), front)  # core/assembly.py
    engine.bus.subscribe(show)                      # every event: deltas, items, notices
    engine.start()                                  # MCP servers in the background
    result = await engine.submit("hello")           # one turn; engine.interrupt() stops it
    await engine.aclose()                           # servers, transport, session file

where `answer` calls `event.answer(Decision.YES)` (or NO, ALWAYS, STOP) whenever the user
has decided.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rivulet.core.config import Settings
from rivulet.core.protocol.context_window import ModelWindows
from rivulet.core.turn.attachments import Attachment
from rivulet.core.turn.bus import BusEvent, EventBus, ItemStarted, Notice
from rivulet.core.turn.compaction import auto_compact, compact
from rivulet.core.turn.conversation import Conversation, Transport, TurnResult
from rivulet.core.turn.recorder import SessionFile
from rivulet.core.turn.tool_api import ToolRouter

if TYPE_CHECKING:
    from rivulet.core.assembly import FrontEnd
    from rivulet.core.checkpoints.turns import TurnCheckpoints
    from rivulet.core.hooks.dispatch import Hooks
    from rivulet.core.store.session import Session
    from rivulet.core.subagents.runner import Approver, SubagentRunner
    from rivulet.core.tools.approval import Decision
    from rivulet.core.tools.mcp_wiring import McpWiring
    from rivulet.core.tools.router import AgentTools, ToolSettings
    from rivulet.core.turn.history import Compaction


class Notices:
    """Where the transport's fallback notice goes, and what the chat's boot found (an
    interrupted restore finished). They may come before the bus they go to (the chat makes
    the transport in its boot thread): they are held until the engine points this at the bus."""

    def __init__(self) -> None:
        self._target: Callable[[str], None] | None = None
        self._held: list[str] = []

    @property
    def target(self) -> Callable[[str], None] | None:
        return self._target

    @target.setter
    def target(self, target: Callable[[str], None] | None) -> None:
        self._target = target
        if target is not None:
            held, self._held = self._held, []
            for text in held:
                target(text)

    def __call__(self, text: str) -> None:
        if self._target is not None:
            self._target(text)
        else:
            self._held.append(text)


def build_transport(settings: Settings, notices: Notices) -> Transport:
    """The transport the settings ask for, its fallback notice sent to `notices`."""
    from rivulet.core.protocol.transports import make_transport

    return make_transport(settings, notices)


class Engine:
    """One conversation at a time over one transport, one set of tools and MCP servers.

    Made by core/assembly.py. `tools` replaces the agent tools (replays, tests); else
    `tool_settings` makes them, asking approvals on the bus (`approvals`), with the MCP
    servers of the settings (`mcp`, or made here; a bad table raises ConfigError). `front`
    says where the workspace's and the servers' notes go (None: the bus, and unsaid)."""

    agent_tools: AgentTools | None  # the tools made here (None: `tools` was given, or no tool settings)

    def __init__(self, settings: Settings, *, bus: EventBus | None = None, transport: Transport | None = None,
                 notices: Notices | None = None, tools: ToolRouter | None = None,
                 tool_settings: ToolSettings | None = None, front: FrontEnd | None = None,
                 mcp: McpWiring | None = None, session: Session | None = None,
                 writer: SessionFile | None = None, windows: ModelWindows | None = None,
                 hooks: Hooks | None = None) -> None:
        from rivulet.core.tools.approval_event import BusApprover
        from rivulet.core.tools.mcp_wiring import McpWiring

        self.settings = settings
        self.bus = bus or EventBus()
        self.front = front
        # Every approval question: a request with an id on the bus, for the front end attached.
        self.approvals = BusApprover(self.bus)
        if transport is None:
            notices = Notices()
            transport = build_transport(settings, notices)
        if notices is not None:
            notices.target = lambda text: self.bus.publish(Notice(text))
        self.transport = transport
        self.windows = windows or ModelWindows()
        self.mcp = mcp if mcp is not None else McpWiring([])
        self.agent_tools = None
        if tools is None and tool_settings is not None:
            tools = self.agent_tools = self._agent_tools(tool_settings, mcp)
            self._checkpoints(tools)
        self.tools = tools
        self.writer = writer
        self.session = session
        # The user's [[hooks]] (core/hooks): in every conversation's turn loop and tools;
        # session_start when the engine starts (the first turn waits for it), session_end at aclose.
        self.hooks = hooks if hooks else None
        self._session_start: asyncio.Future[None] | None = None
        if self.hooks is not None:
            self.hooks.session_id = self._session_id
        self.conversation = self._conversation(session, writer)
        self._turn: asyncio.Task[Any] | None = None
        self._in_submit = False  # a turn runs (`steer` has one to go into)
        self._started = False
        self._warming = False  # the first walk waits for the first call of a tool
        self._sse_for_children: Transport | None = None  # made for subagents beside a WebSocket

    def _agent_tools(self, tool_settings: ToolSettings, mcp: McpWiring | None) -> AgentTools:
        from rivulet.core.tools.approval import ApprovalPolicy
        from rivulet.core.tools.mcp_wiring import McpWiring
        from rivulet.core.tools.router import AgentTools

        if mcp is None:
            self.mcp = McpWiring.from_settings(self.settings)
        policy = ApprovalPolicy(self.settings.approval, self.approvals)
        tools = AgentTools(tool_settings, policy, self.bus, mcp=self.mcp.manager)
        tools.editor_files = self.front.files if self.front is not None else None
        return tools

    def _checkpoints(self, tools: AgentTools) -> None:
        """A checkpoint of the workspace per turn that runs a tool (core/checkpoints): /undo,
        /redo, rewinds with files, `rivulet undo`. Keyed by the session held at the time."""
        from rivulet.core.checkpoints.actions import for_run, turn_lock_for

        notes = self.front.notes if self.front is not None else None

        def notice(text: str) -> None:
            if notes is not None:
                notes(text, "information")
            else:
                self.bus.publish(Notice(text))

        # One rivulet at a time runs tools that may change the workspace (checkpoints or not).
        tools.turn_lock = turn_lock_for(tools.workspace, self._session_id, notice)
        tools.checkpoints = for_run(self.settings, tools.workspace, self._session_id, notice, tools.turn_lock)

    def _conversation(self, session: Session | None, writer: SessionFile | None) -> Conversation:
        conversation = Conversation(self.settings, self.transport, self.bus,
                                    history=session.history if session is not None else None,
                                    tools=self.tools, session=writer, windows=self.windows)
        compaction = conversation.before_turn or auto_compact()

        async def before_turn(conv: Conversation) -> None:
            await self.mcp.wait_for_start()  # a turn sent while the servers start waits for them
            await compaction(conv)

        conversation.before_turn = before_turn
        if self.hooks is not None:
            from rivulet.core.hooks.wiring import attach

            attach(self.hooks, conversation)
        conversation.agents = self._subagents(conversation, 1)
        return conversation

    # ---- subagents (issue 41) ----------------------------------------------------------

    def _subagents(self, conversation: Conversation, depth: int) -> SubagentRunner | None:
        """The `spawn_agent` tool of `conversation` (at `depth`: 1 for the engine's own), or
        None: subagents are off, nested deeper than `subagent_depth` allows, or there are no
        agent tools (a replay's)."""
        s = self.settings
        if not s.subagents or depth > s.subagent_depth or self.agent_tools is None:
            return None
        from rivulet.core.subagents.runner import SubagentRunner

        return SubagentRunner(conversation.bus, self._child, self.approvals, limit=s.max_subagents, depth=depth,
                              session=lambda: conversation.session, hooks=self.hooks)

    def _child(self, bus: EventBus, approver: Approver, instructions: str | None, depth: int) -> Conversation:
        """A subagent's conversation: the same settings and model, transport, sandbox,
        approval policy (its questions go through `approver`, labelled), MCP servers, hooks
        and checkpoints (what its tools change is in the parent turn's checkpoint, so /undo
        puts it back); a fresh history, no session file of its own (the parent's records its
        items), its own tools on its own `bus`."""
        import msgspec

        from rivulet.core.subagents.child_tools import ChildTools
        from rivulet.core.tools.router import AgentTools

        parent = self.agent_tools
        assert parent is not None  # (only made with agent tools)
        extra = "\n\n".join(p for p in (self.settings.instructions, instructions) if p) or None
        settings = self.settings.model_copy(update={"instructions": extra, "background": False})
        policy = msgspec.structs.replace(parent.approvals, approver=approver)  # "always" answers are shared
        tools = AgentTools(parent.settings, policy, bus, mcp=self.mcp.manager)
        tools.checkpoints, tools.turn_lock = parent.checkpoints, parent.turn_lock
        tools.share_guard(parent)  # commands at once: each protected change asked about once
        tools.hooks, tools.editor_files = parent.hooks, parent.editor_files
        tools.turn_diff = parent.turn_diff  # one diff of the turn (/diff, ctrl+t): the subagents' patches in it
        child = Conversation(settings, self._child_transport(), bus, tools=ChildTools(tools), windows=self.windows,
                             project=self.conversation.project)
        child.agents = self._subagents(child, depth + 1)
        return child

    def _child_transport(self) -> Transport:
        """The subagents' transport: the conversation's, unless it is a WebSocket (one
        request at a time on one socket): then one HTTP transport for all of them."""
        if self.transport.name != "ws":
            return self.transport
        if self._sse_for_children is None:
            from rivulet.core.protocol.sse_transport import SseTransport

            self._sse_for_children = SseTransport(self.settings)
        return self._sse_for_children

    def _warm_at_first_call(self, checkpoints: TurnCheckpoints) -> None:
        """The workspace's first walk (core/checkpoints) starts in a thread when the model
        begins its first call of a tool, while the call's arguments stream: the tool's own
        walk then finds the files read. Not at the start: a turn that runs no tool (most of
        exec's) never walks the workspace, and the first request does not wait for it."""
        from rivulet.core.items import is_call

        def a_call(event: BusEvent) -> bool:  # checked at publish: the other items cost no task switch
            return isinstance(event, ItemStarted) and is_call(event.item)

        def on_call(event: BusEvent) -> None:
            unsubscribe()
            checkpoints.warm()

        unsubscribe = self.bus.subscribe(on_call, ItemStarted, when=a_call)

    def _session_id(self) -> str | None:
        return self.writer.session_id if self.writer is not None else None

    # ---- the run's life ----------------------------------------------------------------

    def start(self) -> None:
        """Start the MCP servers in the background (a failure is a note to the front end's
        `servers`); the first `submit` starts them if the front end did not."""
        self._started = True
        if self.hooks is not None and self._session_start is None:
            self._session_start = asyncio.ensure_future(self.hooks.session_start(resumed=self.session is not None))
        checkpoints = self.agent_tools.checkpoints if self.agent_tools is not None else None
        if checkpoints is not None and not self._warming:
            self._warming = True
            self._warm_at_first_call(checkpoints)
        front = self.front
        if front is None:
            self.mcp.start(self.agent_tools)
        else:
            self.mcp.start(self.agent_tools, notify=front.servers, hint=front.servers_hint, on_tools=front.on_tools)

    async def aclose(self) -> None:
        """The session_end hooks, then stop the servers, close the transport and the session file."""
        if self.hooks is not None:
            if self._session_start is not None:
                await asyncio.gather(self._session_start, return_exceptions=True)
            await self.hooks.session_end()
        await self.mcp.aclose()
        await self.transport.aclose()
        if self._sse_for_children is not None:
            await self._sse_for_children.aclose()
        if self.writer is not None:
            self.writer.close()

    # ---- inbound -----------------------------------------------------------------------

    def answer(self, request_id: str, decision: Decision) -> bool:
        """Answer the open approval question `request_id` (ApprovalRequested.id); False
        when none is open by that id (answered, or withdrawn by an interrupt)."""
        return self.approvals.answer(request_id, decision)

    async def submit(self, prompt: str, attachments: list[Attachment] | None = None) -> TurnResult:
        """Run one user turn to its end (its events go to the bus); `interrupt` cancels it."""
        if not self._started:
            self.start()
        self._turn, self._in_submit = asyncio.current_task(), True
        try:
            if self._session_start is not None and not self._session_start.done():
                await asyncio.shield(self._session_start)  # session_start's hooks come before the turn's
            result = await self.conversation.run_turn(prompt, attachments or [])
            while self.conversation.steering:  # steered after the turn's last request: the next turn
                steered = [text for _, text in self.conversation.steering.take()]
                result = await self.conversation.run_turn("\n\n".join(steered))
            return result
        finally:
            self._turn, self._in_submit = None, False

    def steer(self, text: str) -> bool:
        """Send `text` into the running turn at its next request boundary (after the
        current tool outputs); a turn that ends first gets it as the next turn, in this
        `submit`. False, and nothing kept, when no turn runs: the caller submits it."""
        if not self._in_submit:  # (nothing runs, or /compact: no turn to take it)
            return False
        self.conversation.steer(text)
        return True

    def take_steered(self) -> list[str]:
        """The steered messages a turn that failed or was interrupted did not send (the
        front end gives them back to the user); none wait afterwards."""
        return [text for _, text in self.conversation.steering.take()]

    def interrupt(self) -> bool:
        """Cancel the turn (or compaction) under way; the conversation records it."""
        if self._turn is None or self._turn.done():
            return False
        self._turn.cancel()
        return True

    async def compact(self) -> Compaction:
        """Compact the conversation now (as a turn: `interrupt` stops it, and nothing changes)."""
        self._turn = asyncio.current_task()
        try:
            return await compact(self.conversation)
        finally:
            self._turn = None

    def set_model(self, model: str) -> None:
        self.conversation.set_model(model)

    async def switch_settings(self, settings: Settings) -> None:
        """Other settings (a /profile switch) from the next request on: a transport made
        for them, the patch tool they resolve to; history, tools and servers stay."""
        import msgspec

        from rivulet.core.config import effective_patch_tool

        notices = Notices()
        notices.target = lambda text: self.bus.publish(Notice(text))
        old, self.settings, self.transport = self.transport, settings, build_transport(settings, notices)
        conversation = self.conversation
        model, conversation.settings, conversation.transport = conversation.settings.model, settings, self.transport
        if settings.model != model:
            conversation.set_model(settings.model)  # the old model's encrypted reasoning is no longer sent
        if self.agent_tools is not None:
            self.agent_tools.settings = msgspec.structs.replace(self.agent_tools.settings,
                                                            patch_tool=effective_patch_tool(settings))
        await old.aclose()

    def set_effort(self, effort: str | None) -> None:
        """The reasoning effort from the next request on (None: the server's default)."""
        self.settings.reasoning_effort = effort  # type: ignore[assignment]

    def new_conversation(self, writer: SessionFile | None) -> Conversation:
        """A fresh conversation (settings, transport, tools and servers kept); the old
        session file is closed, complete."""
        return self.resume(None, writer)

    def resume(self, session: Session | None, writer: SessionFile | None) -> Conversation:
        """Hold `session` from now on, recorded by `writer`; the old session file is closed."""
        if self.writer is not None:
            self.writer.close()
        self.session, self.writer = session, writer
        self.conversation = self._conversation(session, writer)
        return self.conversation
