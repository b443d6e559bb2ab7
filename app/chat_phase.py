"""The chat's two phases: `Starting` (drawn, the settings still being validated, no turn
possible) and `Running` (the engine built). The App holds one or the other, never a
half-built mix of `None` fields: code that needs the engine asks for `Running`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rivulet.app.boot import ChatWriter, Ready
    from rivulet.core.config import Settings
    from rivulet.core.config_sources import Peek
    from rivulet.core.engine import Engine, Notices
    from rivulet.core.store.prompt_history import PromptHistory
    from rivulet.core.store.session import Session, SessionWriter
    from rivulet.core.tools.mcp_wiring import McpWiring
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.attachments import Attachment
    from rivulet.core.turn.conversation import Conversation, Transport
    from rivulet.core.turn.tool_api import ToolRouter


@dataclass
class Starting:
    """What is known before the engine exists: the view the first frame is drawn from,
    the boot that validates the settings (None: they were given), and what it made."""

    view: Peek
    boot: Callable[[], Ready] | None = None
    settings: Settings | None = None
    transport: Transport | None = None
    tools: ToolRouter | None = None  # given (replay, tests); else the engine builds the agent tools
    tool_settings: ToolSettings | None = None
    session: Session | None = None  # a resumed session: its history is the conversation's
    writer: ChatWriter | None = None
    notices: Notices | None = None  # where a transport made by the boot reports its fallback
    prompts: PromptHistory | None = None  # prompts sent in this workspace, across sessions
    images: list[Attachment] | None = None  # --image files: held for the first message
    turn: int | None = None  # a resumed session's turn to show (`rivulet resume`'s search hit), not its end

    def adopt(self, ready: Ready) -> None:
        """Take what `boot.prepare` made (before the app runs, or in the boot thread)."""
        self.settings, self.transport, self.tool_settings = ready.settings, ready.transport, ready.tool_settings
        self.session, self.writer, self.notices = ready.session, ready.writer, ready.notices
        self.prompts, self.images, self.turn = ready.prompts, ready.images, ready.turn


@dataclass
class Running:
    """The chat with its engine: settings, transport and conversation are the engine's."""

    engine: Engine
    tool_settings: ToolSettings | None

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    @property
    def transport(self) -> Transport:
        return self.engine.transport

    @property
    def conversation(self) -> Conversation:
        return self.engine.conversation


class PhaseProperties:
    """The App's view of its phase: what the settings, transport, session... are now
    (the boot's while starting, the engine's once running), and the phase itself."""

    phase: Starting | Running

    @property
    def starting(self) -> Starting:
        assert isinstance(self.phase, Starting), "the chat has started"
        return self.phase

    @property
    def running(self) -> Running:
        assert isinstance(self.phase, Running), "the chat is still starting"
        return self.phase

    @property
    def engine(self) -> Engine | None:
        return self.phase.engine if isinstance(self.phase, Running) else None

    @property
    def settings(self) -> Settings | None:
        return self.phase.settings

    @property
    def transport(self) -> Transport | None:
        return self.phase.transport

    @property
    def tools(self) -> ToolRouter | None:
        return self.phase.engine.tools if isinstance(self.phase, Running) else self.phase.tools

    @property
    def tool_settings(self) -> ToolSettings | None:
        return self.phase.tool_settings

    @property
    def conversation(self) -> Conversation | None:
        return self.phase.conversation if isinstance(self.phase, Running) else None

    @property
    def session(self) -> Session | None:
        return self.phase.engine.session if isinstance(self.phase, Running) else self.phase.session

    @property
    def session_writer(self) -> SessionWriter | None:
        return self.phase.engine.writer if isinstance(self.phase, Running) else self.phase.writer  # type: ignore[return-value]

    @property
    def mcp(self) -> McpWiring | None:
        return self.phase.engine.mcp if isinstance(self.phase, Running) else None
