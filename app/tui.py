"""The interactive chat app.

Data flow: the turn runs in a worker; the core publishes to its event bus; one bus
subscriber (the bridge) posts each event as a Textual message; the handlers below own
all widget state. Deltas land in live panes' buffers and a frame tick flushes them,
so the screen is updated at most once per frame however fast deltas arrive.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from functools import partial
from typing import Any

from rich.console import Console
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from rivulet.core.turn import bus as b
from rivulet.core import items as it
from rivulet.core.tools.router import AgentTools, ToolSettings
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision
from rivulet.core.config import Settings, safe_url, save_setting
from rivulet.core.safe_log import SafeStream
from rivulet.core.terminal import notify
from rivulet.core.store.prompt_history import PromptHistory
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import Session, SessionWriter
from rivulet.core.turn.conversation import Conversation, Transport
from rivulet.core.turn.tool_api import ToolRouter
from rivulet.core.errors import ConfigError, RivuletError
from rivulet.app.copying import copy_commands, last_answer
from rivulet.app.keymap import apply_keymap
from rivulet.themes import STYLESHEET, THEMES
from rivulet.widgets.composer import Composer
from rivulet.widgets.dialogs import ApprovalScreen, DiffScreen
from rivulet.widgets.frozen_entries import KEEP_ENTRIES, FrozenEntries
from rivulet.widgets.inspector import InspectorScreen, RawItemScreen, notes_for_inspector
from rivulet.widgets.entries import (TranscriptEntry, ErrorEntry, OtherEntry, ToolCallEntry, entry_for, heading_of,
                                     reasoning_summary)
from rivulet.widgets.live import LiveOther, LivePane, LiveReasoning, live_pane_for
from rivulet.widgets.safe import SafeNotify, safe_text
from rivulet.widgets.status import StatusLine
from rivulet.widgets.search import SearchBar
from rivulet.widgets.transcript import Transcript

DEMO_WELCOME = (
    "This is the built-in **demo**: answers come from a scripted local server, not a model. "
    "Type anything and press Enter, ask *what time is it?* to see a tool call, or *make a file* to see "
    "a patch stream, ask for your approval and apply (it adds `rivulet-demo.txt` here). "
    "Set `OPENAI_API_KEY` (or pass `--base-url`) to talk to a real server."
)


class BusBatch(Message):
    """Core bus events, delivered into Textual's message queue. One message carries
    every event that arrived since the last one was handled: at thousands of deltas a
    second, a Textual message per delta would cost more than the deltas themselves."""


class ChatScreen(Screen):
    """The chat's screen. Typing always goes to the composer: a click on a transcript
    entry (a "Thought" toggle, say) or a Tab would otherwise focus that entry, and the
    keys typed next would vanish there."""

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False) -> None:
        if widget is not None and any(isinstance(node, Transcript) for node in widget.ancestors):
            return
        super().set_focus(widget, scroll_visible, from_app_focus)


class RivuletCommands(Provider):
    """Command palette entries of rivulet's own."""

    def _commands(self) -> list[tuple[str, str, Any]]:
        app = self.app
        assert isinstance(app, RivuletApp)
        cmds = [(f"Theme: {t.name}", f"Switch to the {t.name} theme (remembered)", partial(app.set_theme, t.name))
                for t in THEMES]
        cmds.append(("Toggle raw reasoning", "Show or hide raw reasoning text when the server sends it",
                     app.action_toggle_raw_reasoning))
        cmds.append(("Interrupt turn", "Stop the running turn", app.action_interrupt))
        cmds.append(("Turn diff", "Show everything the turn changed in the workspace", app.action_turn_diff))
        cmds.append(("History inspector", "Every committed item, filterable, with its raw JSON", app.action_inspect))
        cmds.append(("Find in transcript", "Search the conversation (ctrl+f)", app.action_find))
        cmds += copy_commands(app, app.last_answer())
        if app.session_writer is not None:
            cmds.append(("Export session as Markdown", "Write the session beside its file, as .md",
                         partial(app.export_session, "md")))
            cmds.append(("Export session as JSON", "Write the session beside its file, as .json",
                         partial(app.export_session, "json")))
        return cmds

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)

    async def discover(self) -> Hits:
        from textual.command import DiscoveryHit

        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)


class RivuletApp(SafeNotify, App[None]):
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
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    def __init__(
        self,
        settings: Settings,
        transport: Transport,
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
    ) -> None:
        super().__init__()
        # The crash report may quote model or server text: plain, sanitised, redacted.
        self.error_console = Console(file=SafeStream(sys.stderr), markup=False, highlight=False)
        self.settings = settings
        self.transport = transport
        self.tools = tools
        self.tool_settings = tool_settings  # with these, the app builds the agent tools itself
        self.demo = demo
        self.frame_interval = frame_interval or 1 / settings.stream_fps  # the text commit tick
        self.remember_theme = remember_theme
        self.live: dict[str, LivePane] = {}
        self.show_raw_reasoning = False
        self._turn_started = 0.0
        self.turn_worker = None
        self._themes_ready = False
        self.bus = b.EventBus()
        self.turn_diff = ""  # the unified diff of what the current/last turn changed
        self._inbox: list[b.BusEvent] = []  # bus events not yet handled (see BusBatch)
        self.conversation: Conversation | None = None
        self.session = session  # a resumed session: its history is the conversation's
        self.session_writer = session_writer
        self.replay = replay  # the name of a recording being replayed: the app plays it at once
        self.protocol_notes: list[b.ProtocolDeviation] = []  # every deviation the server showed
        self._rules_shown: set[str] = set()
        self.server_errors: list[RivuletError] = []  # with their whole bodies, for the inspector
        self.prompt_history = prompt_history  # prompts sent in this workspace, across sessions

    # ---- layout ---------------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return ChatScreen(id="_default")

    def compose(self) -> ComposeResult:
        where = "DEMO · scripted local server, no model" if self.demo else safe_url(self.settings.base_url)
        if self.replay:
            where = "REPLAY · a recorded stream, no server"
        yield Static(safe_text(f"rivulet · {where} · {self.settings.model}"), id="banner",
                     classes="demo" if self.demo else "")
        yield Transcript(id="transcript")
        yield Static("↓ new output below · ctrl+end: follow", id="below-hint")
        yield StatusLine(self.settings.model, id="status")
        yield SearchBar(id="search")
        yield Composer(id="composer")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        # Held directly: while the command palette is up, `query_one` would search it.
        self._transcript = self.screen.query_one(Transcript)
        self._status = self.screen.query_one(StatusLine)
        self._composer = self.screen.query_one(Composer)
        self._transcript.hint = self.screen.query_one("#below-hint")
        self._transcript.hint.display = False
        self._search = self.screen.query_one(SearchBar)
        self._search.display = False
        if self.prompt_history is not None:
            self._composer.load_history(self.prompt_history)
        apply_keymap(self, self.settings.keymap)
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.settings.theme if self.settings.theme in self.available_themes else THEMES[0].name
        self._themes_ready = True  # from now on a theme change is the user's, and remembered
        self.bus.subscribe(self._bridge)
        if hasattr(self.transport, "on_fallback"):  # a FallbackTransport (not imported: see transports.py)
            self.transport.on_fallback = lambda text: self.bus.publish(b.Notice(text))
        if self.tools is None and self.tool_settings is not None:
            policy = ApprovalPolicy(self.settings.approval, self.ask_approval)
            self.tools = AgentTools(self.tool_settings, policy, self.bus)
        if isinstance(self.tools, AgentTools) and self.tools.settings.shell:
            self._status.sandbox = self.tools.sandbox.describe()
        history = self.session.history if self.session is not None else None
        self.conversation = Conversation(self.settings, self.transport, self.bus, history=history, tools=self.tools,
                                         session=self.session_writer)
        if self.session is not None:
            self.call_after_refresh(self._rebuild_transcript)
        if self.replay:
            self.call_after_refresh(self.run_turn, f"(replay of {self.replay})")
        # Both ticks run only while needed (a live pane; a running turn): idle costs nothing.
        self._frame_timer = self.set_interval(self.frame_interval, self._frame, pause=True)
        self._second_timer = self.set_interval(1.0, self._second, pause=True)
        self._status.refresh_line()
        self._composer.focus()
        if self.demo and self.session is None:
            from textual.widgets import Markdown

            self._transcript.mount(Markdown(DEMO_WELCOME, classes="entry", id="welcome"))

    async def _rebuild_transcript(self) -> None:
        """A resumed session: every committed item becomes its entry again, in order."""
        assert self.session is not None
        entries = self.session.history.entries
        outputs = {it.call_id(e.item): e.item for e in entries if it.is_output(e.item)}
        called = {it.call_id(e.item) for e in entries if it.is_call(e.item)}
        shown = [e for e in entries if not (it.is_output(e.item) and it.call_id(e.item) in called)]
        # The oldest go straight to the frozen block: a long session resumes as fast as a short one.
        old, recent = shown[: max(0, len(shown) - KEEP_ENTRIES)], shown[max(0, len(shown) - KEEP_ENTRIES):]
        if old:
            frozen = await self._frozen_block()
            for entry in old:
                frozen.add(entry.key or f"item-{entry.seq}", entry.item, outputs.get(it.call_id(entry.item)))
        widgets = []
        for entry in recent:
            widget = entry_for(entry.item, entry.key or f"item-{entry.seq}")
            if isinstance(widget, ToolCallEntry):
                widget.output = outputs.get(it.call_id(entry.item))
            widgets.append(widget)
        await self._transcript.mount_all(widgets)
        self._transcript.follow()  # resumed at the bottom, and kept there as entries render
        meta = self.session.meta
        self._status.note = f"Resumed session {sanitize(meta.id)}: {len(self.session.history)} items"
        for warning in self.session.warnings:
            self.notify(sanitize(warning), severity="warning", timeout=8)
        workspace = self.tool_settings.workspace if self.tool_settings is not None else None
        if workspace is not None and meta.cwd and str(workspace) != meta.cwd:
            self.notify(sanitize(f"This session was started in {meta.cwd}; its tools now work in {workspace}."),
                        severity="warning", timeout=10)
        self._status.refresh_line()

    def action_inspect(self) -> None:
        if self.conversation is None or isinstance(self.screen, (InspectorScreen, RawItemScreen)):
            return
        self.push_screen(InspectorScreen(list(self.conversation.history.entries),
                                         notes_for_inspector(self.protocol_notes, self.server_errors)))

    def export_session(self, fmt: str) -> None:
        from rivulet.core.store.export import to_json, to_markdown
        from rivulet.core.store.session import load_session

        path = self.session_writer.path if self.session_writer is not None else None
        if path is None:
            self.notify("Nothing to export yet: the session has no message")
            return
        try:
            session = load_session(path)  # the file is complete: every change is fsynced
            out = path.with_suffix(f".{fmt}")
            text = to_markdown(session) if fmt == "md" else to_json(session)
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # private, like the session
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
        except (OSError, RivuletError) as exc:
            self.notify(f"Export failed: {sanitize(str(exc))}", severity="error")
            return
        self.notify(f"Exported to {sanitize(str(out))}")

    def _warn_if_unsaved(self) -> None:
        writer = self.session_writer
        if writer is not None and writer.failed and not getattr(self, "_unsaved_warned", False):
            self._unsaved_warned = True
            self.notify(sanitize(writer.failed), severity="error", timeout=15)

    def open_raw_item(self, key: str) -> None:
        """Jump from a transcript entry to its raw committed item."""
        if self.conversation is None:
            return
        for entry in self.conversation.history.entries:
            if entry.key == key:
                self.push_screen(RawItemScreen(entry))
                return

    def _bridge(self, event: b.BusEvent) -> None:
        self._inbox.append(event)
        if len(self._inbox) == 1:
            self.post_message(BusBatch())

    # ---- themes ---------------------------------------------------------------------

    def set_theme(self, name: str) -> None:
        self.theme = name

    def watch_theme(self, name: str) -> None:
        if self.remember_theme and self._themes_ready and name != self.settings.theme:
            try:
                save_setting("theme", name)
                self.settings.theme = name
            except ConfigError as exc:
                self.notify(exc.message, severity="warning")

    # ---- sending and interrupting -----------------------------------------------------

    @on(Composer.Submitted)
    def _submit(self, message: Composer.Submitted) -> None:
        if self.turn_worker is not None and self.turn_worker.is_running:
            self.notify("A turn is running: press Esc to interrupt it first.", severity="warning")
            message.composer.restore(message.text)
            return
        self._transcript.follow()  # a new message: back to the bottom
        self.run_turn(message.text)

    def run_turn(self, prompt: str) -> None:
        assert self.conversation is not None
        self.turn_worker = self._turn(prompt)

    @work(group="turn", exclusive=True, exit_on_error=False)
    async def _turn(self, prompt: str) -> None:
        assert self.conversation is not None
        try:
            await self.conversation.run_turn(prompt)
        except RivuletError:
            pass  # published on the bus as ErrorOccurred; the handler shows it
        except asyncio.CancelledError:
            await self._interrupted()
            raise

    def action_interrupt(self) -> None:
        if isinstance(self.screen, (DiffScreen, InspectorScreen, RawItemScreen)):  # Esc closes a view first
            self.screen.dismiss()
            return
        if self.focused is self._search:
            self._search.action_close()
            return
        if self.screen.query("HelpPanel"):  # the palette's Keys panel
            self.action_hide_help_panel()
            return
        if self.turn_worker is not None and self.turn_worker.is_running:
            self.turn_worker.cancel()

    async def _interrupted(self) -> None:
        """Esc: history keeps what was committed. If the server committed nothing this
        turn, the prompt goes back to the composer and the turn is undone."""
        assert self.conversation is not None
        status = self._status
        while isinstance(self.screen, ApprovalScreen):  # a question nobody needs answered now
            self.pop_screen()
        for entry in self._transcript.query(ToolCallEntry).filter(".running"):
            entry.remove_class("running")
        for pane in list(self.live.values()):
            await pane.flush(force=True)
            await pane.close()
            pane.mark_discarded("interrupted")
        self.live.clear()
        status.note = "Interrupted: what was committed is kept"
        status.state = "idle"
        status.heading = status.retry = None
        status.refresh_line()

    def _taken_back(self, event: b.TurnInterrupted) -> None:
        """The conversation undid an interrupted turn that committed nothing: its
        entry goes, and the prompt is back in the composer."""
        if event.taken_back is None:
            return
        for entry in self._transcript.query(TranscriptEntry):
            if entry.item_id == f"user-{event.turn_id}":
                entry.remove()
        self._composer.restore(event.taken_back)
        self._status.note = "Interrupted before anything was committed: your message is back in the composer"
        self._status.refresh_line()

    async def ask_approval(self, request: ApprovalRequest) -> Decision:
        """The approver of the tool policy: a modal question, answered by the user."""
        self.alert("rivulet: approval needed", f"{request.kind}: {request.title}")
        return await self.push_screen_wait(ApprovalScreen(request))

    def alert(self, title: str, body: str) -> None:
        """Tell a user who is looking elsewhere (the terminal is not focused): the bell or
        a desktop notification, as configured. Model text in it is cleaned by `notify`."""
        if self.app_focus or self._driver is None or self.is_headless:
            return
        seq = notify.sequence(self.settings.notify, title, body, os.environ.get("TERM_PROGRAM", ""))
        if seq:
            self._driver.write(seq)

    # ---- find, copy, keymap ---------------------------------------------------------

    def action_find(self) -> None:
        if self.screen is self.screen_stack[0]:
            self._search.open()

    def last_answer(self) -> str:
        return last_answer(self.conversation.history if self.conversation is not None else None)

    def action_turn_diff(self) -> None:
        if isinstance(self.screen, DiffScreen):
            return
        self.push_screen(DiffScreen(self.turn_diff))

    def action_scroll_transcript(self, where: str) -> None:
        self._transcript.scroll_by_key(where)

    def action_toggle_raw_reasoning(self) -> None:
        self.show_raw_reasoning = not self.show_raw_reasoning
        for pane in self.live.values():
            if isinstance(pane, LiveReasoning):
                pane.show_raw = self.show_raw_reasoning
        self.notify(f"Raw reasoning {'shown' if self.show_raw_reasoning else 'hidden'}")

    # ---- ticks ------------------------------------------------------------------------

    async def _frame(self) -> None:
        if not self.live:
            self._frame_timer.pause()
            return
        heading = None
        for pane in list(self.live.values()):
            if pane.is_mounted:
                await pane.flush()
            if isinstance(pane, LiveReasoning):
                heading = pane.heading or heading
        status = self._status
        if heading and heading != status.heading:
            status.heading = heading
            status.refresh_line()

    def _second(self) -> None:
        status = self._status
        if status.state in ("working", "retrying"):
            status.elapsed = int(time.monotonic() - self._turn_started)
            status.refresh_line()
        else:
            self._second_timer.pause()

    # ---- bus events ---------------------------------------------------------------------

    async def on_bus_batch(self, _: BusBatch) -> None:
        events, self._inbox = self._inbox, []
        for event in events:
            await self._handle(event)

    async def _handle(self, event: b.BusEvent) -> None:
        transcript = self._transcript
        status = self._status
        match event:
            case b.ItemDelta(item_id=item_id, kind=kind, delta=delta):
                pane = self.live.get(item_id)
                if pane is not None and not pane.has_class("live-ended"):
                    pane.add_delta(kind, delta)
            case b.ItemPart(item_id=item_id, kind=kind, index=index):
                pane = self.live.get(item_id)
                if pane is not None:
                    pane.add_part(kind, index)
            case b.ItemStarted(item=item, item_id=item_id):
                if status.state == "retrying":  # the retry streams: no longer reconnecting
                    status.state, status.retry = "working", None
                    status.refresh_line()
                pane = live_pane_for(item, item_id, self.show_raw_reasoning)
                self.live[item_id] = pane
                await transcript.mount(pane)
                self._frame_timer.resume()
            case b.ItemProgressed(item_id=item_id, event=name):
                pane = self.live.get(item_id or "")
                if isinstance(pane, LiveOther):
                    pane.set_status(name.rsplit(".", 1)[-1])
            case b.ItemCompleted(item=item, item_id=item_id):
                await self._commit(item, item_id)
                self._warn_if_unsaved()
            case b.ItemLiveEnded(item_id=item_id):
                # A later item was added while this one streamed: its pane stops
                # growing; its Item Done still replaces it with the committed entry.
                pane = self.live.get(item_id)
                if pane is not None:
                    await pane.flush(force=True)
                    pane.add_class("live-ended")
            case b.TurnInterrupted():
                self._taken_back(event)
            case b.ProtocolDeviation():
                await self._protocol_note(event)
            case b.ItemDiscarded(item_id=item_id, reason=reason):
                pane = self.live.pop(item_id, None)
                if pane is not None:
                    await pane.flush(force=True)
                    await pane.close()
                    pane.mark_discarded(reason)
            case b.TurnStarted():
                self.turn_diff = ""
                self._warn_if_unsaved()
                for pane in self._transcript.query(".discarded"):
                    await pane.remove()
                self._turn_started = time.monotonic()
                self._second_timer.reset()
                self._second_timer.resume()
                status.state, status.elapsed, status.heading, status.retry, status.note = "working", 0, None, None, None
                status.refresh_line()
            case b.ResponseStarted(attempt=attempt):
                if attempt == 1:
                    status.retry = None
                    status.state = "working"
                    status.refresh_line()
            case b.Retrying(attempt=attempt, max_attempts=most, delay=delay, error=error):
                self.server_errors.append(error)
                status.state, status.retry = "retrying", (attempt, most)
                status.refresh_line()
                self.notify(f"{error.message} — retrying in {delay:.1f}s", severity="warning", timeout=4)
            case b.UsageUpdated(usage=usage):
                status.set_usage(usage)
            case b.ToolOutputDelta(call_id=call_id, text=text):
                for entry in self._transcript.query(ToolCallEntry):
                    if it.call_id(entry.item) == call_id:
                        entry.add_class("running")
                        entry.append_output(text)
            case b.TurnDiffUpdated(diff=diff):
                self.turn_diff = diff
            case b.Notice(text=text):
                self.notify(sanitize(text), severity="warning", timeout=8)
            case b.ErrorOccurred(error=error):
                self.server_errors.append(error)
                await transcript.mount(ErrorEntry(f"{error.kind}: {error.message}"))
                status.state, status.note, status.retry = "failed", f"Failed: {error.message}", None
                status.refresh_line()
            case b.TurnCompleted(stopped=stopped):
                for pane in self._transcript.query(".discarded"):
                    await pane.remove()
                status.state = "idle"
                took = int(time.monotonic() - self._turn_started)
                status.note = f"Stopped: {sanitize(stopped)}" if stopped else f"Done in {took}s"
                if self.turn_diff:
                    status.note += " · ctrl+t: turn diff"
                status.heading = status.retry = None
                status.refresh_line()
                self.alert("rivulet: turn finished", status.note)

    async def _protocol_note(self, note: b.ProtocolDeviation) -> None:
        """A tolerated protocol deviation: kept for the inspector, and shown once per
        kind as a dim line (never a modal: the chat goes on)."""
        self.protocol_notes.append(note)
        if note.rule in self._rules_shown:
            return
        self._rules_shown.add(note.rule)
        line = Text(f"protocol note · {note.rule}: {sanitize(note.detail)}  (ctrl+o lists every note)",
                    style="dim italic")
        await self._transcript.mount(Static(line, classes="protocol-note"))

    async def _commit(self, item: dict[str, Any], item_id: str) -> None:
        """Item Done: the live pane gives way to the committed entry (one full render)."""
        transcript = self._transcript
        pane = self.live.pop(item_id, None)
        if it.is_output(item):
            for entry in self._transcript.query(ToolCallEntry):
                if it.call_id(entry.item) == it.call_id(item):
                    entry.remove_class("running")
                    entry.set_output(item)
                    return
            await transcript.mount(OtherEntry(item, item_id))
            return
        if item.get("type") == "reasoning":
            heading = heading_of(reasoning_summary(item))
            if heading and self._status.state in ("working", "retrying"):
                self._status.heading = heading
                self._status.refresh_line()
        entry = entry_for(item, item_id)
        if pane is not None:
            await pane.close()
            await transcript.mount(entry, before=pane)
            await pane.remove()
        else:
            await transcript.mount(entry)
        await self._freeze_old_entries()

    async def _freeze_old_entries(self) -> None:
        """Keep the newest KEEP_ENTRIES entries as widgets; hand older ones to the frozen
        block (in batches of ten, so it does not happen on every commit)."""
        entries = [w for w in self._transcript.children if isinstance(w, TranscriptEntry)]
        if len(entries) <= KEEP_ENTRIES + 10:
            return
        old = entries[: len(entries) - KEEP_ENTRIES]
        frozen = await self._frozen_block(before=old[0])
        for widget in old:
            frozen.add(widget.item_id, widget.item, getattr(widget, "output", None))
        await self._transcript.remove_children(old)

    async def _frozen_block(self, before: Widget | None = None) -> FrozenEntries:
        found = self._transcript.query(FrozenEntries)
        if found:
            return found.first()
        block = FrozenEntries(id="frozen-entries")
        await self._transcript.mount(block, before=before)
        return block

    async def on_unmount(self) -> None:
        await self.bus.close()
        await self.transport.aclose()
        if self.session_writer is not None:
            self.session_writer.close()
