"""The interactive chat app: screens, bindings and lifecycle, and nothing else.

Data flow: the turn runs in a worker; the core publishes to its event bus; the bridge
(app/bus_bridge.py) posts the events as Textual messages; the handlers in app/handlers/
own all widget state, through a ChatView (app/chat_view.py), never the App. The start
is app/tui_start.py (Starting, then Running: app/chat_phase.py), the keys held while it
runs app/tui_held_input.py, sending and Esc app/tui_turns.py, the views app/tui_views.py;
the layout app/chat_screen.py, commands app/commands/ (given services: app/tui_services.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker

from rivulet.app import tui_start, tui_turns, tui_views
from rivulet.app.attach.ui import AttachAndEdit
from rivulet.app.bus_bridge import BusBatch, BusBridge
from rivulet.app.chat_phase import PhaseProperties, Running, Starting
from rivulet.app.chat_screen import ChatScreen, chat_layout
from rivulet.app.chat_view import ChatView
from rivulet.app.handlers.approvals import Approvals
from rivulet.app.handlers.commits import Commits
from rivulet.app.handlers.live_panes import LivePanes
from rivulet.app.handlers.notes import Notes
from rivulet.app.handlers.queue import MessageQueue
from rivulet.app.handlers.subagents import Subagents
from rivulet.app.handlers.turn_status import TurnStatus
from rivulet.app.tui_ctrl_c import CtrlC
from rivulet.app.tui_ctrl_q import CtrlQ
from rivulet.app.tui_held_input import InputReleased, hold, noting_input, noting_post, released
from rivulet.app.tui_keys import KeyActions
from rivulet.app.tui_palette import RivuletCommands
from rivulet.app.tui_services import ChatSending, chat_view_for
from rivulet.core.config_sources import Peek
from rivulet.core.prompts.shell_context import ShellContext
from rivulet.core.safe_log import SafeStream
from rivulet.core.turn import bus as b
from rivulet.themes import STYLESHEET
from rivulet.widgets.composer import Composer
from rivulet.widgets.messages import OpenRawItem
from rivulet.widgets.safe import SafeNotify
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.timer import Timer

    from rivulet.app.boot import BootError, Ready
    from rivulet.app.commands.services import Services
    from rivulet.core.config import Settings
    from rivulet.core.protocol.context_window import ModelWindows
    from rivulet.core.store.prompt_history import PromptHistory
    from rivulet.core.store.session import Session, SessionWriter
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.attachments import Attachment
    from rivulet.core.turn.conversation import Transport
    from rivulet.core.turn.tool_api import ToolRouter

__all__ = ["BusBatch", "RivuletApp"]


class RivuletApp(PhaseProperties, AttachAndEdit, SafeNotify, KeyActions, App[None]):
    CSS_PATH = str(STYLESHEET)
    TITLE = "rivulet"
    COMMANDS = App.COMMANDS | {RivuletCommands}
    BINDINGS = [
        # Short labels, and raw reasoning only in the palette: at 80 columns the footer
        # shows every binding that matters.
        Binding("escape", "interrupt", "Stop", id="app.interrupt", priority=True),
        Binding("ctrl+r", "toggle_raw_reasoning", "Raw reasoning", id="app.raw_reasoning", show=False),
        Binding("ctrl+t", "turn_diff", "Diff", id="app.turn_diff"),
        Binding("ctrl+o", "inspect", "History", id="app.inspect"),
        Binding("ctrl+f", "find", "Find", id="app.find", show=False),
        Binding("ctrl+s", "transcript", "Transcript", id="app.transcript", show=False),  # app/transcript_out.py
        Binding("ctrl+q", "quit_asking", "Quit", id="app.quit", priority=True),  # app/tui_ctrl_q.py
        # Copy, close, stop, clear, or (twice) quit: app/tui_ctrl_c.py.
        Binding("ctrl+c", "ctrl_c", "Clear/stop", id="app.ctrl_c", priority=True, show=False),
    ]
    frame_timer: Timer  # the live panes' frame tick and the running turn's 1 s tick (set at the start)
    second_timer: Timer
    _transcript: Transcript  # for tests; the app's modules use self.chat (set on mount)
    _status: StatusLine
    _composer: Composer
    services: Services  # what commands are given (app/tui_services.py), once the engine exists

    def __init__(
        self, settings: Settings | None, transport: Transport | None, *, tools: ToolRouter | None = None,
        tool_settings: ToolSettings | None = None, demo: bool = False, frame_interval: float | None = None,
        remember_theme: bool = True, session: Session | None = None, session_writer: SessionWriter | None = None,
        replay: str | None = None, prompt_history: PromptHistory | None = None,
        images: list[Attachment] | None = None, view: Peek | None = None, boot: Callable[[], Ready] | None = None,
    ) -> None:
        # The bridge first: Textual's App posts messages while it is made (post_message below).
        self.bus, self.bridge = (bus := b.EventBus()), BusBridge(self, bus)  # (a turn gives way to a key through it)
        super().__init__()
        tui_start.patch_textual()  # pastes never become keys; removed widgets' lines are freed
        # The crash report may quote model or server text: plain, sanitised, redacted.
        self.error_console = Console(file=SafeStream(sys.stderr), markup=False, highlight=False)  # type: ignore[arg-type]
        # Starting until the engine is built (app/tui_start.py); without settings, `boot`
        # validates them in a thread once the first frame is drawn: until then no turn can run.
        self.phase: Starting | Running = Starting(
            view or Peek(), boot, settings=settings, transport=transport, tools=tools, tool_settings=tool_settings,
            session=session, writer=session_writer, prompts=prompt_history, images=images)
        self.ready: Ready | None = None  # what `boot` made (its demo server is stopped on exit)
        self.boot_error: BootError | None = None  # why it could not start: the line to print
        self.held_input: list[events.Key | events.Paste] | None = None  # app/tui_held_input.py
        self.demo, self.remember_theme, self.replay = demo, remember_theme, replay  # replay: a recording's name
        # The text commit tick (from the stream_fps setting, once the settings are known).
        self.frame_interval = frame_interval or (1 / settings.stream_fps if settings is not None else None)
        self.turn_worker: Worker[None] | None = None
        self.themes_ready = False  # from on_mount on, a theme change is the user's, and remembered
        self.windows: ModelWindows | None = None  # what the server's /models said of context windows
        self.shell_context = ShellContext()  # what `!cmd`s printed, for the next message
        self.chat: ChatView = chat_view_for(self)  # what the handlers see of the chat
        # The bus's handlers, by family; each owns the state its events change.
        self.live_panes = LivePanes(self.chat)
        self.commits = Commits(self.chat, self.live_panes)
        self.turn_status = TurnStatus(self.chat)
        self.notes, self.subagents = Notes(self.chat), Subagents(self.chat, self.live_panes, self.commits)
        self.sending = ChatSending(self)  # how a typed message becomes a turn
        self.queue = MessageQueue(self.chat, self.sending)  # messages typed while a turn runs: queued or steered
        families = (self.live_panes, self.commits, self.turn_status, self.notes, Approvals(self.chat), self.queue,
                    self.subagents)
        self.bridge.route(*(family.routes() for family in families))
        self.bridge.route_at_once(self.turn_status.at_once())  # "Done" not queued behind commits
        self.bridge.watch_batches(self.live_panes, self.commits, self.subagents)
        self.live = self.live_panes.live
        self.ctrl_c, self.ctrl_q = CtrlC(self), CtrlQ(self)  # their keys' actions: app/tui_keys.py

    @classmethod
    def from_ready(cls, ready: Ready) -> RivuletApp:
        """The chat over what `boot.prepare` made before the app (resume)."""
        app = cls(ready.settings, ready.transport)
        tui_start.adopt(app, ready)
        return app

    @classmethod
    def booting(cls, view: Peek, boot: Callable[[], Ready], *, demo: bool) -> RivuletApp:
        """The chat drawn from `view` at once, `boot` run in a thread after the first frame."""
        return cls(None, None, demo=demo, view=view, boot=boot)

    # ---- layout and lifecycle -----------------------------------------------------------

    def get_default_screen(self) -> Screen[None]:
        return ChatScreen(id="_default")

    def compose(self) -> ComposeResult:
        banner, model = tui_start.banner(self)
        yield from chat_layout(banner, model, demo=self.demo)

    def on_mount(self) -> None:
        tui_start.mount(self)

    def post_message(self, message: Message) -> bool:
        noting_post(self, message)  # a key from the terminal: the bridge's batch stops short
        return super().post_message(message)

    async def on_event(self, event: events.Event) -> None:
        with noting_input(self, event):  # a key is drawn before a flood's next batch
            if not await hold(self, event):
                await super().on_event(event)

    async def on_input_released(self, _: InputReleased) -> None:
        held, self.held_input = self.held_input or [], None
        for event in released(held):
            await super().on_event(event)

    async def on_bus_batch(self, _: BusBatch) -> None:
        await self.bridge.drain()

    async def _handle(self, event: b.BusEvent) -> None:
        """One bus event, straight to its handlers (tests use it to skip the queue)."""
        await self.bridge.handle(event)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turn_worker:
            self.queue.worker_changed(event.state)

    async def on_unmount(self) -> None:
        await tui_start.stop(self)

    def set_theme(self, name: str) -> None:
        self.theme = name

    def watch_theme(self, name: str) -> None:
        tui_start.remember_theme(self, name)

    # ---- sending, interrupting, views: app/tui_turns.py, app/tui_views.py -------------

    @on(Composer.Submitted)
    def _submit(self, message: Composer.Submitted) -> None:
        tui_turns.submit(self, message)

    def run_turn(self, prompt: str, attachments: list[Attachment] | None = None) -> None:
        self.turn_worker = self.run_worker(tui_turns.run(self, self.running.engine, prompt, attachments or []),
                                           group="turn", exclusive=True, exit_on_error=False)

    def action_interrupt(self) -> None:
        tui_turns.interrupt(self)

    def alert(self, title: str, body: str) -> None:
        tui_views.alert(self, title, body)

    def action_inspect(self) -> None:
        tui_views.inspect(self)

    def action_mcp(self) -> None:
        tui_views.mcp_servers(self)

    def on_open_raw_item(self, message: OpenRawItem) -> None:
        self.open_raw_item(message.key)

    def open_raw_item(self, key: str) -> None:
        tui_views.open_raw_item(self, key)

    def copy_to_clipboard(self, text: str) -> None:
        super().copy_to_clipboard(tui_views.clipboard_text(text))

    def action_find(self) -> None:
        if self.screen is self.screen_stack[0]:
            self.chat.search.open()

    def last_answer(self) -> str:
        return tui_views.last_answer(self)

    def action_turn_diff(self) -> None:
        tui_views.turn_diff(self)

    def action_scroll_transcript(self, where: str) -> None:
        self.chat.transcript.scroll_by_key(where)

    async def on_status_line_note_overflowed(self, message: StatusLine.NoteOverflowed) -> None:
        await tui_views.say_whole(self, message.text)

    def action_transcript(self) -> None:
        tui_views.transcript_in_pager(self)

    def action_toggle_raw_reasoning(self) -> None:
        shown = self.live_panes.toggle_raw_reasoning()
        self.notify(f"Raw reasoning {'shown' if shown else 'hidden'}")
