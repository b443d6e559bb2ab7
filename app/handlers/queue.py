"""Messages typed while a turn runs: queued (Enter) or steered into the turn (the steer key).

Queued messages wait here and are sent as turns of their own, in order, when the running
turn completes. The steer key (`composer.steer`, Tab while a turn runs; `s` on a queued
entry) hands the message to the engine (Engine.steer): it goes with the turn's next
request, after the tool outputs, or as the next turn if the turn sends none. Either
kind shows above the composer (widgets/queue_view.py) until it is sent.

An interrupted or failed turn sends nothing more: what was steered and not sent, and
everything queued, goes back into the composer, after whatever is there, so
nothing typed is lost and nothing is sent that the user did not see again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from textual.widget import Widget
from textual.worker import WorkerState

from rivulet.core.turn import bus as b
from rivulet.widgets.queue_view import QueueView

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import Handler
    from rivulet.app.chat_view import ChatView
    from rivulet.core.engine import Engine
    from rivulet.widgets.composer import Composer

STEER_KEY = "tab"  # composer.steer's default (a [keymap] may change it)
QUEUE_KEY = "alt+up"  # composer.queue's default


@dataclass(frozen=True)
class Queued:
    text: str  # what is sent (after `!cmd` ran)
    typed: str  # what the user typed: what comes back to edit


class Sending(Protocol):
    """What the queue needs of the chat's turns (app/tui_services.py provides it)."""

    @property
    def engine(self) -> Engine | None: ...  # None while the chat starts

    @property
    def keymap(self) -> dict[str, str]: ...  # the user's [keymap], for the hints

    def running(self) -> bool: ...  # a turn is under way

    def send(self, text: str, typed: str) -> None:
        """`text` as Enter sends it (its attachments taken; what `!cmd`s printed added);
        `typed`: what comes back to the composer if an attachment cannot be read."""


class MessageQueue:
    def __init__(self, view: ChatView, turns: Sending) -> None:
        self.chat, self.turns = view, turns
        self.entries: list[Queued] = []
        self.view = QueueView(id="queue")
        self.view.on_edit, self.view.on_drop = self.edit, self.drop
        self.view.on_steer, self.view.on_leave = self.steer_entry, self.leave
        self.failed = False  # the running turn ended in an error (the worker returns normally)

    def routes(self) -> dict[type, Handler]:
        # A steered message leaves the list when it is committed, or when the engine sends it as a turn.
        return {b.ItemCompleted: self._steer_sent, b.TurnStarted: self._steer_sent}

    def attach(self, composer: Composer) -> None:
        """Above the composer and its completion popup; the composer's steer and queue keys."""
        parent = composer.parent
        if isinstance(parent, Widget):
            parent.mount(self.view, before=composer)
        composer.turn_running = self.running
        composer.steer_to = self.steer_text
        composer.open_queue = self.open
        self.chat.status.hint_from(self.status_hint)

    # ---- what the user does -------------------------------------------------------------

    def running(self) -> bool:
        return self.turns.running()

    def add(self, text: str, typed: str) -> None:
        """Enter while a turn runs: sent when it completes, after those queued before it."""
        self.entries.append(Queued(text, typed))
        self.show()

    def steer_text(self, text: str) -> bool:
        """The steer key on the composer's text: True when the running turn took it."""
        engine = self.turns.engine
        if not self.running() or engine is None:
            return False
        if text.lstrip().startswith(("/", "!")):  # a command runs now, as Enter would run it
            from rivulet.widgets.composer import Composer

            composer = self.chat.composer
            composer.post_message(Composer.Submitted(composer, text))
            return True
        if not engine.steer(text):
            return False
        self.show()
        return True

    def steer_entry(self, index: int) -> None:
        entry = self.entries[index]
        if self.steer_text(entry.text):
            del self.entries[index]
            self.show()

    def edit(self, index: int) -> None:
        """The entry back in the composer (and out of the queue), after a draft there."""
        entry = self.entries.pop(index)
        self._give_back([entry.typed])
        self.show()

    def drop(self, index: int) -> None:
        del self.entries[index]
        self.show()

    def open(self) -> bool:
        """alt+up on the composer: the newest queued entry has the keys."""
        if not self.entries:
            return False
        self.view.focus()
        return True

    def leave(self) -> None:
        self.chat.composer.focus()

    # ---- the turn's end -----------------------------------------------------------------

    def worker_changed(self, state: WorkerState) -> None:
        """The turn's worker ended: a completed turn sends the next queued message; an
        interrupted or failed one gives everything back to the composer."""
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        failed, self.failed = self.failed or state != WorkerState.SUCCESS, False
        engine = self.turns.engine
        steered = engine.take_steered() if engine is not None else []
        if failed:
            typed = [*steered, *(e.typed for e in self.entries)]
            self.entries.clear()
            if typed:
                self._give_back(typed)
                self.chat.notify(f"The turn did not finish: {len(typed)} waiting message"
                                f"{'s are' if len(typed) > 1 else ' is'} back in the composer")
            self.show()
            return
        self.entries[:0] = [Queued(text, text) for text in steered]  # (none: a completed turn sent them)
        self.show()
        if self.entries and not self.running():
            self.send(self.entries.pop(0))

    def send(self, entry: Queued) -> None:
        self.show()
        self.turns.send(entry.text, entry.typed)  # (an attachment that cannot be read: said, the text back)

    # ---- the view -----------------------------------------------------------------------

    def show(self) -> None:
        engine = self.turns.engine
        steering = engine.conversation.steering.texts() if engine is not None else []
        self.view.hint = f"{self.key('composer.queue', QUEUE_KEY)}: edit the queue · " \
                         f"{self.key('composer.steer', STEER_KEY)}: steer the draft into the running turn"
        self.view.focused_hint = "↑↓ move · enter/e: edit · d/del: drop · s: steer into the turn · esc: back"
        self.view.show([e.text for e in self.entries], steering)
        self.chat.status.set()

    async def _steer_sent(self, _: b.BusEvent) -> None:
        if self.view.steering:
            self.show()

    def key(self, binding_id: str, default: str) -> str:
        return str(self.turns.keymap.get(binding_id, default))

    def status_hint(self) -> str | None:
        """The status line's, while a turn runs and there is a draft to steer."""
        if not self.chat.composer.text.strip():
            return None
        return f"{self.key('composer.steer', STEER_KEY)} to steer"

    def _give_back(self, texts: list[str]) -> None:
        composer = self.chat.composer
        draft = composer.text
        composer.restore("\n\n".join([*([draft] if draft.strip() else []), *texts]))
        composer.focus()
