"""The chat's services for the command layer (app/commands/services.py): the status line,
the turns, the transcript and the themes, each a small object over the App's parts,
built once the engine exists (app/tui_start.py). A command is given these, never the
App."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rivulet.app.chat_view import ChatView
from rivulet.app.commands.services import Services
from rivulet.widgets.safe import safe_text

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from typing import Any

    from rivulet.app.commands.results import Result, Severity
    from rivulet.app.handlers.turn_status import TurnStatus
    from rivulet.app.tui import RivuletApp
    from rivulet.core.engine import Engine
    from rivulet.core.store.session import Session

KEYS = "ctrl+p: every command, in the palette · Tab or Enter picks from the / list · Esc: stop the turn"


class ChatStatus:
    """The status line (app/status_board.py is its one writer)."""

    def __init__(self, view: ChatView, turn_status: TurnStatus) -> None:
        self.view, self.turn_status = view, turn_status

    @property
    def usage(self) -> dict[str, Any] | None:
        return self.view.status.line.usage

    @property
    def window(self) -> int | None:
        return self.view.status.line.window

    @property
    def total_tokens(self) -> int:
        return self.view.status.line.total_tokens

    def say(self, note: str | None) -> None:
        self.view.status.say(note)

    def show_model(self, model: str, effort: str | None, profile: str | None, window: int | None) -> None:
        self.view.status.set(model=model, effort=effort, profile=profile, window=window)
        # The banner ends with the model's name ("rivulet · where · model"): the new one.
        head, sep, _ = str(self.view.banner.content).rpartition(" · ")
        if sep:
            self.view.banner.update(safe_text(f"{head}{sep}{model}"))

    def show_server(self, where: str) -> None:
        # "rivulet · where · model": the model stays, the server is the new one (no longer the demo).
        model = str(self.view.banner.content).rpartition(" · ")[2]
        self.view.banner.update(safe_text(f"rivulet · {where} · {model}"))
        self.view.banner.remove_class("demo")

    def show_sandbox(self, sandbox: str) -> None:
        self.view.status.set(sandbox=sandbox)

    def working(self, heading: str) -> None:
        self.turn_status.started_at = time.monotonic()  # the 1 s tick shows the elapsed time
        self.view.status.set(state="working", elapsed=0, heading=heading, note=None)

    def idle(self, note: str | None, *, forget_usage: bool = False) -> None:
        if forget_usage:
            self.view.status.set(state="idle", heading=None, usage=None, note=note)
        else:
            self.view.status.set(state="idle", heading=None, note=note)


class ChatTurns:
    """The turn's worker: one at a time, Esc cancels it."""

    def __init__(self, app: RivuletApp) -> None:
        self._app = app

    def running(self) -> bool:
        worker = self._app.turn_worker
        return worker is not None and worker.is_running

    async def run_as_turn(self, work: Callable[[], Awaitable[Result]]) -> None:
        from rivulet.app.tui_commands import show

        async def turn() -> None:
            await show(self._app, await work())

        # The turn's worker slot: Esc interrupts it, and no prompt is sent while it runs.
        self._app.turn_worker = self._app.run_worker(turn(), group="turn", exclusive=True, exit_on_error=False)

    def cancel(self) -> bool:
        app = self._app
        if not self.running() or app.conversation is None or app.turn_worker is None:
            return False
        app.conversation.cancel_requested = True  # a background response is cancelled on the server too
        app.turn_worker.cancel()
        return True


class ChatSending:
    """How a typed message becomes a turn (the queue sends what waited through it)."""

    def __init__(self, app: RivuletApp) -> None:
        self._app = app

    @property
    def engine(self) -> Engine | None:
        return self._app.engine

    @property
    def keymap(self) -> dict[str, str]:
        settings = self._app.settings
        return settings.keymap if settings is not None else {}

    def running(self) -> bool:
        worker = self._app.turn_worker
        return worker is not None and worker.is_running

    def send(self, text: str, typed: str) -> None:
        app = self._app
        taken = app.take_prompt(text, typed)
        if taken is None:  # an attachment that cannot be read: said, and the text is back
            return
        app.chat.transcript.follow()  # a new message: back to the bottom
        app.run_turn(app.shell_context.take(taken[0]), taken[1])


class ChatTranscript:
    def __init__(self, app: RivuletApp) -> None:
        self._app = app

    async def start_over(self) -> None:
        app = self._app
        app.turn_status.turn_diff = ""
        app.live.clear()
        app.subagents.forget()
        await app.chat.transcript.remove_children()
        app.chat.status.set(total_tokens=0, usage=None, note=None, state="idle")

    async def show_session(self, session: Session) -> None:
        from rivulet.app.resume import rebuild_transcript

        settings = self._app.tool_settings
        self._app.subagents.forget()  # (another session's subagents: its own, from the file)
        await rebuild_transcript(self._app.chat, self._app.commits, session,
                                 settings.workspace if settings is not None else None)

    async def show_turn(self, turn: int) -> None:
        """The turn's message at the top of the view, kept there as the screen settles (as
        find keeps its match) until the user scrolls; nothing if the turn is not shown."""
        from rivulet.widgets.entries import TranscriptEntry
        from rivulet.widgets.frozen_entries import FrozenEntries

        transcript, key = self._app.chat.transcript, f"user-{turn}"
        for frozen in transcript.query(FrozenEntries):
            for n, (shown, _, _) in enumerate(frozen.entries):
                if shown == key:
                    transcript.show_old_entry(frozen, n)
                    return
        entry = next((e for e in transcript.query(TranscriptEntry) if e.item_id == key), None)
        if entry is not None:
            transcript.show_entry(entry)


class ChatLooks:
    def __init__(self, app: RivuletApp) -> None:
        self._app = app

    @property
    def theme(self) -> str:
        return self._app.theme

    def set_theme(self, name: str) -> None:
        self._app.set_theme(name)


def services_for(app: RivuletApp, engine: Engine) -> Services:
    def notify(text: str, /, *, severity: Severity = "information", timeout: float | None = None) -> None:
        app.notify(text, severity=severity, timeout=timeout)  # (looked up at each call: a test may wrap it)

    tool_settings = app.tool_settings
    return Services(engine=engine, notify=notify, status=ChatStatus(app.chat, app.turn_status),
                    turns=ChatTurns(app), transcript=ChatTranscript(app), clipboard=app.copy_to_clipboard,
                    keys=KEYS, context=app.shell_context,
                    workspace=tool_settings.workspace if tool_settings is not None else None,
                    looks=ChatLooks(app), args=app.ready.args if app.ready is not None else None)


def chat_view_for(app: RivuletApp) -> ChatView:
    """What the handlers see of the chat, and what it does through the App (each looked up
    at its call: a test may wrap one)."""
    return ChatView(notify=lambda *a, **kw: app.notify(*a, **kw), push_screen=lambda *a: app.push_screen(*a),
                    alert=lambda title, body: app.alert(title, body),
                    give_back_attachments=lambda: app.give_back_attachments(),
                    session_writer=lambda: app.session_writer)
