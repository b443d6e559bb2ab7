"""The turn's progress in the status line: working, retrying, usage, failed, done; the
turn's diff; and an undone turn's prompt going back to the composer.

A turn's start and end change the status line the moment they are published (the
bridge's `route_at_once`), not when the batch they join is handled: that batch may first
commit the turn's last entries and lay them out, frames the user would wait for "Done".
The queued handlers of events published before the end (a response started, a retry)
may then run after it: they change the line only while a turn is running."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rivulet.core.sanitize import sanitize
from rivulet.core.turn import bus as b
from rivulet.core.turn.retry_policy import WAITING, waiting_text
from rivulet.widgets.entries import ErrorEntry, TranscriptEntry
from rivulet.widgets.status import footer_pieces

if TYPE_CHECKING:
    from rivulet.app.bus_bridge import AtOnce, Handler
    from rivulet.app.chat_view import ChatView

DIFF_HINT = " · ctrl+t: turn diff"


class TurnStatus:
    def __init__(self, view: ChatView) -> None:
        self.view = view
        self.started_at = 0.0
        self.running = False  # between a turn's start and its end, as published
        self.turn_diff = ""  # the unified diff of what the current/last turn changed
        self.wait_told = False  # this turn's toast about waiting for a local server was shown

    def at_once(self) -> dict[type, AtOnce]:
        return {b.TurnStarted: self.turn_started, b.TurnCompleted: self.turn_completed}

    def routes(self) -> dict[type, Handler]:
        return {
            b.ItemStarted: self.item_started,
            b.ResponseStarted: self.response_started,
            b.Retrying: self.retrying,
            b.UsageUpdated: self.usage,
            b.TurnDiffUpdated: self.diff,
            b.ErrorOccurred: self.error,
            b.TurnInterrupted: self.taken_back,
        }

    def turn_started(self, _: b.TurnStarted) -> None:
        self.turn_diff = ""
        self.wait_told = False
        self.running = True
        self.started_at = time.monotonic()
        self.view.second_timer.reset()  # runs (from now, each second) until the turn is over
        self.view.status.set(state="working", elapsed=0, heading=None, retry=None, note=None, cost=None)
        self.view.status.paint_now()  # not after the layout of the prompt's entry

    async def item_started(self, _: b.ItemStarted) -> None:
        if self.running and self.view.status.line.state == "retrying":  # the retry streams: no longer reconnecting
            self.view.status.set(state="working", retry=None)

    async def response_started(self, event: b.ResponseStarted) -> None:
        line = self.view.status.line
        waited = line.retry is not None and line.retry.startswith(WAITING)
        # A try after the wait for a local server: working again (a refused one says the wait
        # again at once); the server back, it may take minutes to read the prompt anew.
        if (event.attempt == 1 or waited) and self.running:
            self.view.status.set(state="working", retry=None)

    async def retrying(self, event: b.Retrying) -> None:
        if not self.running:
            return
        waited_already = self.wait_told and event.gives_up_in is not None
        if event.gives_up_in is not None:  # a local server restarting: the time left, retry by retry
            self.view.status.set(state="retrying", retry=waiting_text(event.gives_up_in))
            self.wait_told = True
        else:
            self.view.status.set(state="retrying", retry=f"reconnecting {event.attempt}/{event.max_attempts}")
        if not waited_already:  # one toast for the wait, not one per try
            self.view.notify(f"{event.error.message} — retrying in {event.delay:.1f}s", severity="warning", timeout=4)

    async def usage(self, event: b.UsageUpdated) -> None:
        self.view.status.add_usage(event.usage)

    async def diff(self, event: b.TurnDiffUpdated) -> None:
        self.turn_diff = event.diff
        note = self.view.status.line.note
        if not self.running and self.view.status.line.state == "idle" and note and note.startswith(
                ("Done in", "Stopped:")) and DIFF_HINT not in note:  # the end was shown before this
            self.view.status.say(note + DIFF_HINT)

    async def error(self, event: b.ErrorOccurred) -> None:
        self.running = False
        error = event.error
        await self.view.transcript.mount(ErrorEntry(f"{error.kind}: {error.message}"))
        self.view.status.set(state="failed", note=f"Failed: {error.message}", retry=None)

    async def taken_back(self, event: b.TurnInterrupted) -> None:
        """The conversation undid an interrupted turn that committed nothing: its entry
        goes, and the prompt is back in the composer."""
        if event.taken_back is None:
            return
        for entry in self.view.transcript.query(TranscriptEntry):
            if entry.item_id == f"user-{event.turn_id}":
                entry.remove()
        draft = self.view.composer.text  # typed during the turn, or messages given back: kept after it
        self.view.composer.restore(event.taken_back + (f"\n\n{draft}" if draft.strip() else ""))
        self.view.give_back_attachments()  # what it attached is held again
        self.view.status.say("Interrupted before anything was committed: your message is back in the composer")

    def turn_completed(self, event: b.TurnCompleted) -> None:
        self.running = False
        took = int(time.monotonic() - self.started_at)
        note = f"Stopped: {sanitize(event.stopped)}" if event.stopped else f"Done in {took}s"
        if self.turn_diff:
            note += DIFF_HINT
        alert = note  # the notification says what happened, not what it cost
        # The turn's footer: tokens, dollars, speed (/cost: the session's). Parts of the
        # status line of their own, which give way on a narrow terminal, dollars and speed last.
        cost = footer_pieces(event.cost) if event.cost and not event.stopped else None
        self.view.status.set(state="idle", note=note, cost=cost, heading=None, retry=None)
        self.view.status.paint_now()  # not after the layout of the answer's commit (issue 22)
        self.view.alert("rivulet: turn finished", alert)

    def interrupted(self) -> None:
        """Esc stopped the turn's worker: history keeps what was committed."""
        self.running = False
        self.view.status.set(note="Interrupted: what was committed is kept", state="idle", heading=None, retry=None)

    def second(self) -> None:
        """The 1 s tick: the elapsed time of a running turn."""
        if self.view.status.line.state in ("working", "retrying"):
            self.view.status.set(elapsed=int(time.monotonic() - self.started_at))
        else:
            self.view.second_timer.pause()
