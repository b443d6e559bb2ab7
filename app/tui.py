"""The interactive chat app: it wires the pieces together and keeps the bindings.

Data flow: the turn runs in a worker; the core publishes to its event bus; the bridge
(app/bus_bridge.py) posts the events as Textual messages; the handlers in
app/handlers/ own all widget state. The layout is app/chat_screen.py, the command
palette app/commands/palette.py, resume app/resume.py, export app/export.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker

from rivulet.app import DEMO_MODEL
from rivulet.app.attach.ui import AttachAndEdit
from rivulet.app.bus_bridge import BusBatch, BusBridge
from rivulet.app.chat_screen import DEMO_WELCOME, ChatScreen, chat_layout
from rivulet.app.commands.palette import RivuletCommands
from rivulet.app.ctrl_c import CtrlC
from rivulet.app.handlers.approvals import Approvals
from rivulet.app.handlers.commits import Commits
from rivulet.app.handlers.live_panes import LivePanes
from rivulet.app.handlers.notes import Notes
from rivulet.app.handlers.queue import MessageQueue
from rivulet.app.handlers.turn_status import TurnStatus
from rivulet.app.keymap import apply_keymap
from rivulet.app.paste_guard import install as install_paste_guard
from rivulet.core.config_sources import Peek, safe_url, save_setting
from rivulet.core.errors import ConfigError, RivuletError, one_line
from rivulet.core.prompts.shell_context import ShellContext
from rivulet.core.safe_log import SafeStream
from rivulet.core.sanitize import sanitize
from rivulet.core.terminal import notify
from rivulet.core.turn import bus as b
from rivulet.themes import STYLESHEET, THEMES
from rivulet.widgets.composer import Composer
from rivulet.widgets.messages import OpenRawItem
from rivulet.widgets.safe import SafeNotify, safe_text
from rivulet.widgets.search import SearchBar
from rivulet.widgets.status import StatusLine
from rivulet.widgets.transcript import Transcript

if TYPE_CHECKING:
    from rivulet.app.boot import BootError, Ready
    from rivulet.core.config import Settings
    from rivulet.core.engine import Engine, Notices
    from rivulet.core.protocol.context_window import ModelWindows
    from rivulet.core.store.prompt_history import PromptHistory
    from rivulet.core.store.session import Session, SessionWriter
    from rivulet.core.tools.mcp_wiring import McpWiring
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.attachments import Attachment
    from rivulet.core.turn.conversation import Conversation, Transport
    from rivulet.core.turn.tool_api import ToolRouter

__all__ = ["BusBatch", "RivuletApp"]


class InputReleased(Message):
    """The chat has started: the keys held since the first frame can be handled."""


class RivuletApp(AttachAndEdit, SafeNotify, App[None]):
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
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
        # Copy, close, stop, clear, or (twice) quit: app/ctrl_c.py.
        Binding("ctrl+c", "ctrl_c", "Clear/stop", id="app.ctrl_c", priority=True, show=False),
    ]

    def __init__(
        self,
        settings: Settings | None,
        transport: Transport | None,
        *,
        tools: ToolRouter | None = None,
        tool_settings: ToolSettings | None = None,
        demo: bool = False,
        frame_interval: float | None = None,
        remember_theme: bool = True,
        session: Session | None = None,
        session_writer: SessionWriter | None = None,
        replay: str | None = None,
        prompt_history: PromptHistory | None = None,
        images: list[Attachment] | None = None,
        view: Peek | None = None,
        boot: Callable[[], Ready] | None = None,
    ) -> None:
        super().__init__()
        install_paste_guard()  # pasted text never becomes key presses (app/paste_guard.py)
        # The crash report may quote model or server text: plain, sanitised, redacted.
        self.error_console = Console(file=SafeStream(sys.stderr), markup=False, highlight=False)
        # Without settings the app starts from `view` and adopts what `boot` prepares, in a
        # thread, once the first frame is drawn (app/boot.py): until then no turn can run.
        self.settings = settings
        self.transport = transport
        self.view = view or Peek()
        self._boot = boot
        self.ready: Ready | None = None  # what `boot` made (its demo server is stopped on exit)
        self.boot_error: BootError | None = None  # why it could not start: the line to print
        self._input_held: list[events.Key | events.Paste] | None = None  # see on_event
        self.tools = tools
        self.tool_settings = tool_settings  # with these, the app builds the agent tools itself
        self.demo = demo
        # The text commit tick (from the stream_fps setting, once the settings are known).
        self.frame_interval = frame_interval or (1 / settings.stream_fps if settings is not None else None)
        self.remember_theme = remember_theme
        self.turn_worker = None
        self._themes_ready = False
        self.bus = b.EventBus()
        # The conversation, its tools, servers and session file: built at _start (core/engine.py).
        self.engine: Engine | None = None
        self._session = session  # a resumed session: its history is the conversation's
        self._session_writer = session_writer
        self._notices: Notices | None = None  # where a transport made by the boot reports its fallback
        self.replay = replay  # the name of a recording being replayed: the app plays it at once
        self.prompt_history = prompt_history  # prompts sent in this workspace, across sessions
        self._images = images  # --image files: held for the first message
        # What the server's /models said of context windows (made at _start: it imports httpx).
        self.windows: ModelWindows | None = None
        self.shell_context = ShellContext()  # what `!cmd`s printed, for the next message
        # The bus's handlers, by family; each owns the state its events change.
        self.live_panes = LivePanes(self)
        self.commits = Commits(self)
        self.turn_status = TurnStatus(self)
        self.notes = Notes(self)
        self.bridge = BusBridge(self)
        self.queue = MessageQueue(self)  # messages typed while a turn runs: queued or steered
        for family in (self.live_panes, self.commits, self.turn_status, self.notes, Approvals(self), self.queue):
            self.bridge.route(family.routes())
        self.bridge.route_at_once(self.turn_status.at_once())  # "Done" not queued behind commits
        self.bridge.watch_batches(self.live_panes)
        self.bridge.watch_batches(self.commits)
        self.live = self.live_panes.live
        self.ctrl_c = CtrlC(self)

    @property
    def conversation(self) -> Conversation | None:
        return self.engine.conversation if self.engine is not None else None

    @property
    def session(self) -> Session | None:
        return self.engine.session if self.engine is not None else self._session

    @property
    def session_writer(self) -> SessionWriter | None:
        return self.engine.writer if self.engine is not None else self._session_writer  # type: ignore[return-value]

    @property
    def mcp(self) -> McpWiring | None:
        return self.engine.mcp if self.engine is not None else None

    @classmethod
    def from_ready(cls, ready: Ready) -> RivuletApp:
        """The chat over what `boot.prepare` made before the app (resume)."""
        app = cls(ready.settings, ready.transport)
        app._adopt(ready)
        return app

    @classmethod
    def booting(cls, view: Peek, boot: Callable[[], Ready], *, demo: bool) -> RivuletApp:
        """The chat drawn from `view` at once, `boot` run in a thread after the first frame."""
        return cls(None, None, demo=demo, view=view, boot=boot)

    # ---- layout and wiring ------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return ChatScreen(id="_default")

    def _banner(self) -> tuple[str, str]:
        """(the banner's text, the model) from the settings, or from the view until then."""
        if self.settings is not None:
            base_url, model = self.settings.base_url, self.settings.model
        else:
            base_url, model = self.view.base_url, DEMO_MODEL if self.demo else self.view.model
        where = "DEMO · scripted local server, no model" if self.demo else safe_url(base_url)
        if self.replay:
            where = "REPLAY · a recorded stream, no server"
        return f"rivulet · {where} · {model}", model

    def compose(self) -> ComposeResult:
        banner, model = self._banner()
        yield from chat_layout(banner, model, demo=self.demo)

    def on_mount(self) -> None:
        # Held directly: while the command palette is up, `query_one` would search it.
        screen = self.screen
        self._transcript = screen.query_one(Transcript)
        self._status = screen.query_one(StatusLine)
        self._composer = screen.query_one(Composer)
        self._transcript.hint = screen.query_one("#below-hint")
        self._transcript.hint.display = False
        self._search = screen.query_one(SearchBar)
        self._search.display = False
        self._banner_line = screen.query_one("#banner", Static)
        self.queue.attach(self._composer)
        for theme in THEMES:
            self.register_theme(theme)
        self._apply_settings_view()
        self._themes_ready = True  # from now on a theme change is the user's, and remembered
        self._composer.focus()
        if self.demo and self.session is None:
            from textual.widgets import Markdown

            self._transcript.mount(Markdown(DEMO_WELCOME, classes="entry", id="welcome"))
        if self.settings is not None:
            self._start()
        else:
            self._input_held = []  # keys and pastes wait until the chat has started (see on_event)
            self.call_after_refresh(self.run_worker, self._boot_in_thread(), group="boot", exit_on_error=False)

    def _apply_settings_view(self) -> None:
        """Keymap and theme, from the settings (or the view until they are validated)."""
        keymap = self.settings.keymap if self.settings is not None else self.view.keymap
        theme = self.settings.theme if self.settings is not None else self.view.theme
        apply_keymap(self, keymap)
        if theme not in self.available_themes:  # said, not silently replaced (issue 25)
            self.notify(f"Unknown theme {theme!r}: using {THEMES[0].name} "
                        f"(one of {', '.join(t.name for t in THEMES)})", severity="warning")
        self.theme = theme if theme in self.available_themes else THEMES[0].name

    async def _boot_in_thread(self) -> None:
        """Validate the settings and build what a turn needs, off the UI thread; then adopt it."""
        from rivulet.app.boot import BootError

        assert self._boot is not None
        boot = self._boot

        def run() -> Ready:
            self.ready = boot()  # set here too: a quit during the boot still stops its demo server
            return self.ready

        try:
            ready = await asyncio.to_thread(run)
        except BootError as exc:
            self.boot_error = exc
            self.exit(return_code=exc.code)
            return
        except Exception as exc:  # a bug: still one line and an exit, never a chat that cannot start
            logging.getLogger(__name__).debug("the chat could not start", exc_info=True)
            self.boot_error = BootError(f"the chat could not start: {one_line(str(exc)) or type(exc).__name__}")
            self.exit(return_code=1)
            return
        self._adopt(ready)
        banner, model = self._banner()
        self._banner_line.update(safe_text(banner))  # the palette may be the screen by now
        self._status.model = model
        self._themes_ready = False  # the settings' own theme is not a change to remember
        self._apply_settings_view()
        self._themes_ready = True
        self._start()
        self.post_message(InputReleased())  # behind every key that came before it

    def _adopt(self, ready: Ready) -> None:
        """Take what `boot.prepare` made (before the app runs, or in the boot thread)."""
        self.ready = ready
        self.settings, self.transport = ready.settings, ready.transport
        self.tool_settings, self._session, self._session_writer = ready.tool_settings, ready.session, ready.writer
        self._notices = ready.notices
        self.prompt_history, self._images = ready.prompts, ready.images
        self.demo = ready.demo is not None  # as the validated settings decided

    def _start(self) -> None:
        """Everything that needs the settings: the engine (conversation, tools, MCP), ticks."""
        from rivulet.app.commands.model import learn_windows, refresh_model_status
        from rivulet.app.commands.registry import slash_commands
        from rivulet.app.commands.slash import SlashCompletions
        from rivulet.app.mcp.wiring import start_for_app, wiring_for_app
        from rivulet.core.engine import Engine
        from rivulet.core.tools.router import AgentTools

        assert self.settings is not None and self.transport is not None
        self.frame_interval = self.frame_interval or 1 / self.settings.stream_fps
        self.bus.subscribe(self.bridge.publish)
        from rivulet.app.hooks_wiring import hooks_for_app

        mcp = wiring_for_app(self) if self.tools is None and self.tool_settings is not None else None
        self.engine = Engine(self.settings, bus=self.bus, transport=self.transport, notices=self._notices,
                             tools=self.tools, tool_settings=self.tool_settings, mcp=mcp, session=self._session,
                             writer=self._session_writer, windows=self.windows, hooks=hooks_for_app(self))
        self.tools, self.windows = self.engine.tools, self.engine.windows
        start_for_app(self)  # in the background: the UI does not wait for the servers
        if self.prompt_history is not None:
            self._composer.load_history(self.prompt_history)
        self.setup_attachments(self._images)
        if isinstance(self.tools, AgentTools) and self.tools.settings.shell:
            self._status.sandbox = self.tools.sandbox.describe()
        if self.session is not None:
            from rivulet.app.resume import rebuild_transcript

            self.call_after_refresh(rebuild_transcript, self)
            if self.session.background:  # a background response the last run left running
                from rivulet.app.background_resume import reattach_later

                self.call_after_refresh(reattach_later, self)
        if self.replay:
            self.call_after_refresh(self.run_turn, f"(replay of {self.replay})")
        # Both ticks run only while needed (a live pane; a running turn): idle costs nothing.
        self.frame_timer = self.set_interval(self.frame_interval, self.live_panes.frame, pause=True)
        self.second_timer = self.set_interval(1.0, self.turn_status.second, pause=True)
        self._composer.add_completion_provider(SlashCompletions(lambda: slash_commands(self)))
        refresh_model_status(self)
        if not self.replay:
            self.run_worker(learn_windows(self), group="models", exit_on_error=False)
            if not self.demo:  # a server met for the first time: probed once, in the background
                from rivulet.app.capability_probe import probe_in_background

                def busy() -> bool:
                    return bool(self.turn_worker and self.turn_worker.is_running)

                self.run_worker(probe_in_background(self.settings, lambda text: self.bus.publish(b.Notice(text)), busy),
                                group="probe", exit_on_error=False)

    async def on_event(self, event: events.Event) -> None:
        """While the chat starts, plain characters are typed at once, and every other key
        or paste waits here, unhandled: what it does (a send, a popup, a recalled prompt,
        an attached image) depends on what is starting. From the first key that waits,
        every later one waits too, so they keep their order."""
        if self._input_held is not None and isinstance(event, (events.Key, events.Paste)) \
                and not event.is_forwarded and not self._plain_text(event):
            # The app's own keys (quit, stop) act at once, also if the start hangs.
            if isinstance(event, events.Key) and await self._check_bindings(event.key, priority=True):
                return
            self._input_held.append(event)
            return
        await super().on_event(event)

    def _plain_text(self, event: events.Key | events.Paste) -> bool:
        """A character that only adds itself to the composer (`/` and `@` open popups)."""
        return not self._input_held and isinstance(event, events.Key) and event.is_printable \
            and event.character not in (None, "/", "@") and self.focused is self._composer

    async def on_input_released(self, _: InputReleased) -> None:
        """Every key held so far, in order, handled here before any key that came after
        this message. They go as one burst, stamped now: while the chat started, the
        input thread shared the interpreter with the start, so the gaps between their
        own times are the start's, not the typist's (an Enter among them is a newline,
        as in a paste; an Enter they end with sends, unless more keys follow at once)."""
        held, self._input_held = self._input_held or [], None
        for event in held:
            again = events.Key(event.key, event.character) if isinstance(event, events.Key) else \
                events.Paste(event.text)
            await super().on_event(again)

    async def on_bus_batch(self, _: BusBatch) -> None:
        await self.bridge.drain()

    async def _handle(self, event: b.BusEvent) -> None:
        """One bus event, straight to its handlers (tests use it to skip the queue)."""
        await self.bridge.handle(event)

    async def on_unmount(self) -> None:
        if self.engine is not None:
            await self.engine.aclose()  # every server it started: nothing survives the app
        else:
            if self.transport is not None:
                await self.transport.aclose()
            if self._session_writer is not None:
                self._session_writer.close()
        await self.bus.close()

    # ---- themes ---------------------------------------------------------------------

    def set_theme(self, name: str) -> None:
        self.theme = name

    def watch_theme(self, name: str) -> None:
        if self.remember_theme and self._themes_ready and self.settings is not None and name != self.settings.theme:
            try:
                save_setting("theme", name)
                self.settings.theme = name
            except ConfigError as exc:
                self.notify(exc.message, severity="warning")

    # ---- sending and interrupting -----------------------------------------------------

    @on(Composer.Submitted)
    def _submit(self, message: Composer.Submitted) -> None:
        from rivulet.app.commands.slash import dispatch

        if self.conversation is None:  # still starting: the composer holds its keys until then
            return
        text = dispatch(self, message.text)  # a slash command runs here, also during a turn
        if text is None:
            return
        from rivulet.app.commands.bang import take_bang

        text = take_bang(self, text)  # `!cmd` runs here: its output goes with the next message
        if text is None:
            return
        if self.turn_worker is not None and self.turn_worker.is_running:
            self.queue.add(text, message.text)  # sent when the turn completes (app/handlers/queue.py)
            return
        taken = self.take_prompt(text, message.text)
        if taken is None:
            return
        taken = (self.shell_context.take(taken[0]), taken[1])
        self._transcript.follow()  # a new message: back to the bottom
        self.run_turn(*taken)

    def run_turn(self, prompt: str, attachments: list[Attachment] | None = None) -> None:
        assert self.conversation is not None
        self.turn_worker = self._turn(prompt, attachments or [])

    @work(group="turn", exclusive=True, exit_on_error=False)
    async def _turn(self, prompt: str, attachments: list[Attachment]) -> None:
        assert self.conversation is not None
        try:
            await self.engine.submit(prompt, attachments)  # type: ignore[union-attr]
        except RivuletError:
            self.queue.failed = True  # published on the bus as ErrorOccurred; the handler shows it
        except asyncio.CancelledError:
            await self._interrupted()
            raise

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turn_worker:
            self.queue.worker_changed(event.state)

    def action_interrupt(self) -> None:
        from rivulet.widgets.entry_keys import FocusableEntry
        from rivulet.widgets.escape import close_top_screen

        if self.screen is self.screen_stack[0] and self._composer.close_completion():
            return  # Esc closes the completion popup, and does nothing else
        if close_top_screen(self):  # a picker, view or the palette: its own Esc closes it
            return
        if self.focused is self._search:
            self._search.action_close()
            return
        if isinstance(self.focused, FocusableEntry) or self.focused is self.queue.view:  # back to typing
            self._composer.focus()
            return
        if self.screen.query("HelpPanel"):  # the palette's Keys panel
            self.action_hide_help_panel()
            return
        if self.turn_worker is not None and self.turn_worker.is_running:
            if self.conversation is not None:
                self.conversation.cancel_requested = True  # a background response is cancelled, not left
            self.turn_worker.cancel()
            return
        self.escape_to_edit()

    async def _interrupted(self) -> None:
        """Esc: history keeps what was committed (the conversation decides whether the
        turn is undone, and says so with TurnInterrupted)."""
        from rivulet.widgets.dialogs import ApprovalScreen

        while isinstance(self.screen, ApprovalScreen):  # a question nobody needs answered now
            self.pop_screen()
        self.commits.stop_running()
        await self.live_panes.discard_all("interrupted")
        self.turn_status.interrupted()

    def alert(self, title: str, body: str) -> None:
        """Tell a user who is looking elsewhere (the terminal is not focused): the bell or
        a desktop notification, as configured. Model text in it is cleaned by `notify`."""
        if self.app_focus or self._driver is None or self.is_headless or self.settings is None:
            return
        seq = notify.sequence(self.settings.notify, title, body, os.environ.get("TERM_PROGRAM", ""))
        if seq:
            self._driver.write(seq)

    # ---- views and actions ----------------------------------------------------------

    def action_inspect(self) -> None:
        from rivulet.widgets.inspector import InspectorScreen, RawItemScreen, compaction_rows, notes_for_inspector

        if self.conversation is None or isinstance(self.screen, (InspectorScreen, RawItemScreen)):
            return
        notes = notes_for_inspector(self.notes.protocol_notes, self.notes.server_errors)
        notes += compaction_rows(self.conversation.history.compactions, after=len(notes))
        self.push_screen(InspectorScreen(list(self.conversation.history.entries), notes))

    def action_mcp(self) -> None:
        from rivulet.app.mcp.wiring import show_mcp

        show_mcp(self)

    def on_open_raw_item(self, message: OpenRawItem) -> None:
        self.open_raw_item(message.key)

    def open_raw_item(self, key: str) -> None:
        """Jump from a transcript entry to its raw committed item."""
        from rivulet.widgets.inspector import RawItemScreen

        if self.conversation is None:
            return
        for entry in self.conversation.history.entries:
            if entry.key == key:
                self.push_screen(RawItemScreen(entry))
                return

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy through Textual (OSC 52: a selection, a text area, ours) without
        control characters: it is pasted into a shell (app/copying.py says how many)."""
        from rivulet.core.terminal.clipboard import clean_copy

        super().copy_to_clipboard(clean_copy(text)[0])

    def export_session(self, fmt: str) -> None:
        from rivulet.app.export import export_session

        if self.session_writer is None or self.session_writer.path is None:
            self.notify("Nothing to export yet: the session has no message")
            return
        try:
            out = export_session(self.session_writer.path, fmt)
        except (OSError, RivuletError) as exc:
            self.notify(f"Export failed: {sanitize(str(exc))}", severity="error")
            return
        self.notify(f"Exported to {sanitize(str(out))}")

    def action_find(self) -> None:
        if self.screen is self.screen_stack[0]:
            self._search.open()

    def last_answer(self) -> str:
        from rivulet.app.copying import last_answer

        return last_answer(self.conversation.history if self.conversation is not None else None)

    def action_turn_diff(self) -> None:
        from rivulet.app.commands.undo import show_turns
        from rivulet.widgets.dialogs import DiffScreen

        if isinstance(self.screen, DiffScreen):
            return
        self.run_worker(show_turns(self), group="command", exit_on_error=False)  # a list of turns (issue 26)

    def action_scroll_transcript(self, where: str) -> None:
        self._transcript.scroll_by_key(where)

    async def on_status_line_note_overflowed(self, message: StatusLine.NoteOverflowed) -> None:
        """A note the status line could only show cut (at a word) is said whole here."""
        from rivulet.app.commands.output import show_note

        await show_note(self, message.text)

    def action_transcript(self) -> None:
        from rivulet.app.transcript_out import open_in_pager

        open_in_pager(self)

    def action_ctrl_c(self) -> None:
        self.ctrl_c.press()

    def action_toggle_raw_reasoning(self) -> None:
        shown = self.live_panes.toggle_raw_reasoning()
        self.notify(f"Raw reasoning {'shown' if shown else 'hidden'}")
