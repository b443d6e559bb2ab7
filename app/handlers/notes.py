"""What the server and the session tell the user on the side: protocol deviations
(kept for the inspector, one dim line per kind; a stream-shape one once per server:
core/server_notes.py), server errors with their whole
bodies, notices, a session file that can no longer be written, and a turn that
thought but never answered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from rivulet.core.errors import RivuletError
from rivulet.core.hooks.events import HookNote
from rivulet.core.sanitize import sanitize
from rivulet.core.server_notes import SeenNotes
from rivulet.core.turn import bus as b
from rivulet.core.turn.no_answer import NO_ANSWER
from rivulet.widgets.note_line import NoteLine, line_item, protocol_note_item

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import Handler
    from rivulet.app.chat_view import ChatView


class Notes:
    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.protocol_notes: list[b.ProtocolDeviation] = []  # every deviation the server showed
        self.server_errors: list[RivuletError] = []  # with their whole bodies
        self._rules_shown: set[str] = set()
        self._unsaved_warned = False
        # The server's stream-shape notes already shown in an earlier run (set at start).
        self.seen: SeenNotes | None = None

    def routes(self) -> dict[type, Handler]:
        return {
            b.ProtocolDeviation: self.deviation,
            b.Notice: self.notice,
            HookNote: self.hook_note,
            b.Retrying: self.retrying,
            b.ErrorOccurred: self.error,
            b.TurnStarted: self.check_session_file,
            b.ItemCompleted: self.check_session_file,
            b.TurnCompleted: self.no_answer,
        }

    async def deviation(self, note: b.ProtocolDeviation) -> None:
        """A tolerated deviation: never a modal, the chat goes on."""
        self.protocol_notes.append(note)
        if note.rule in self._rules_shown:
            return
        self._rules_shown.add(note.rule)
        if self.seen is not None and not self.seen.first_time(note.rule):
            return  # shown with this server before: /status and the inspector keep it
        # Frozen with the entries around it, in its turn (widgets/note_line.py).
        await self.view.transcript.mount(NoteLine(protocol_note_item(note.rule, note.detail)))

    async def notice(self, event: b.Notice) -> None:
        self.view.notify(sanitize(event.text), severity="warning", timeout=8, markup=False)

    async def hook_note(self, note: HookNote) -> None:
        """A hook's output (capped) or its one-line failure: dim, in the transcript, never markup."""
        style = "dim italic" if not (note.failed or note.blocked) else "italic"
        await self.view.transcript.mount(NoteLine(line_item("hook-note", note.line(), style)))  # (frozen in place)

    async def retrying(self, event: b.Retrying) -> None:
        self.server_errors.append(event.error)

    async def error(self, event: b.ErrorOccurred) -> None:
        self.server_errors.append(event.error)
        if event.error.message.startswith(NO_ANSWER):  # cut inside the reasoning: it is all there is
            self._open_last_thought()

    async def check_session_file(self, _: b.BusEvent) -> None:
        writer = self.view.session_writer
        if writer is not None and writer.failed and not self._unsaved_warned:
            self._unsaved_warned = True
            self.view.notify(sanitize(writer.failed), severity="error", timeout=15)

    async def no_answer(self, event: b.TurnCompleted) -> None:
        """The turn ended inside the model's reasoning: its Thought is all there is, so it
        is opened, and a line under it says that no answer came."""
        if not event.no_answer:
            return
        line = NoteLine(line_item("no-answer", f"⚠ {event.no_answer}", "italic"))
        await self.view.transcript.mount(line, after=self._open_last_thought())

    def _open_last_thought(self) -> Widget | None:
        """Unfold the newest Thought of the transcript; it, or None when there is none."""
        from textual.widgets import Collapsible

        from rivulet.widgets.entries import ReasoningEntry

        thoughts = [w for w in self.view.transcript.children if isinstance(w, ReasoningEntry)]
        if not thoughts:
            return None
        for fold in thoughts[-1].query(Collapsible):
            fold.collapsed = False
        return thoughts[-1]
