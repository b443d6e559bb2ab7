"""What a command sees of the chat: `CommandContext`, a typed view of the running chat.

Commands (and the modules they call: resume, edit and resend, transcript out) take a
CommandContext, never the App: the App satisfies it structurally, and a command reaches
the widgets through `chat` (app/chat_view.py), never through the App's private state.
`tests/app/test_thin_app_rules.py` checks both. A command that needs more of the chat
adds it here, in sight of that rule."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen
    from textual.worker import Worker

    from rivulet.app.attach.composer import ComposerAttachments
    from rivulet.app.boot import Ready
    from rivulet.app.chat_phase import Running
    from rivulet.app.chat_view import ChatView
    from rivulet.app.handlers.commits import Commits
    from rivulet.app.handlers.turn_status import TurnStatus
    from rivulet.core.config import Settings
    from rivulet.core.engine import Engine
    from rivulet.core.prompts.shell_context import ShellContext
    from rivulet.core.protocol.context_window import ModelWindows
    from rivulet.core.store.session import Session, SessionWriter
    from rivulet.core.tools.mcp_wiring import McpWiring
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.attachments import Attachment
    from rivulet.core.turn.conversation import Conversation, Transport
    from rivulet.core.turn.tool_api import ToolRouter
    from rivulet.widgets.live import LivePane

class CommandContext(Protocol):
    # The chat's widgets and the status line's one writer.
    chat: ChatView
    windows: ModelWindows | None
    ready: Ready | None
    turn_worker: Worker[Any] | None
    attachments: ComposerAttachments | None
    shell_context: ShellContext
    # The handler families whose state a command resets (/new) or reads (/diff).
    turn_status: TurnStatus
    commits: Commits
    live: dict[str, LivePane]

    # The running chat: its engine, and the settings and transport the engine holds.
    # Commands run once the chat has started (the palette and the composer wait for it).
    @property
    def running(self) -> Running: ...

    # What is known now, also while starting (None: not yet).
    @property
    def settings(self) -> Settings | None: ...

    @property
    def transport(self) -> Transport | None: ...

    @property
    def tools(self) -> ToolRouter | None: ...

    @property
    def tool_settings(self) -> ToolSettings | None: ...

    @property
    def engine(self) -> Engine | None: ...

    @property
    def conversation(self) -> Conversation | None: ...

    @property
    def session(self) -> Session | None: ...

    @property
    def session_writer(self) -> SessionWriter | None: ...

    @property
    def mcp(self) -> McpWiring | None: ...

    @property
    def screen(self) -> Screen[Any]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    @property
    def theme(self) -> str: ...

    # Textual's services, as the App has them.
    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = False) -> None: ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...

    def push_screen(self, screen: Screen[Any]) -> Any: ...

    def run_worker(self, work: Awaitable[Any], *, group: str = "default", exclusive: bool = False,
                   exit_on_error: bool = True) -> Worker[Any]: ...

    def exit(self) -> None: ...

    def suspend(self) -> Any: ...

    def copy_to_clipboard(self, text: str) -> None: ...

    # The chat's own actions.
    def set_theme(self, name: str) -> None: ...

    def run_turn(self, prompt: str, attachments: list[Attachment] | None = None) -> None: ...

    def take_prompt(self, text: str, typed: str | None = None) -> tuple[str, list[Attachment]] | None: ...

    def post_message(self, message: Message) -> bool: ...

    def refresh_chips(self) -> None: ...

    def last_answer(self) -> str: ...

    def export_session(self, fmt: str) -> None: ...

    def action_turn_diff(self) -> None: ...

    def action_transcript(self) -> None: ...

    def action_inspect(self) -> None: ...

    def action_mcp(self) -> None: ...

    def action_find(self) -> None: ...

    def action_interrupt(self) -> None: ...

    def action_toggle_raw_reasoning(self) -> None: ...
