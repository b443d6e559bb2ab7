"""The approval dialog's answers, through core/tools/answer_gate.py: a key answers only
after a pause in typing, "always" is picked and then confirmed, and a hint line under the
buttons says which of the three the dialog is waiting for.

Every key the dialog sees passes `on_key` before any binding: an answer key (one of the
dialog's `decide(...)` bindings, or Enter on a focused button) is settled there and goes
no further; any other key (an arrow, a letter of the message being typed) still restarts
the wait and drops a selected "always". Textual stamps a key with the monotonic clock
when it arrives, so keys queued while the app was busy drawing still count as the burst
they were."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import events
from textual.actions import parse as parse_action
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Static

from rivulet.core.tools.answer_gate import QUIET, AnswerGate
from rivulet.core.tools.approval import Decision

WAITING = "Waiting for a pause in typing: keys typed now do not answer"
READY = "y, n or s answers · a (always) then asks you to confirm"
CONFIRM = "Confirm {what}: press {how} · any other key cancels"


class GatedQuestion(ModalScreen[Decision]):
    """A modal question whose buttons' ids and `decide(...)` bindings name decisions.
    A subclass yields `self.hint` where the hint line goes."""

    QUIET = QUIET  # tests that answer at once set 0 (tests/conftest.py)

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self.gate = AnswerGate(clock(), self.QUIET)
        self.hint = Static(WAITING if self.QUIET > 0 else READY, id="approval-hint")
        self._timer: Timer | None = None
        self._confirm = ""  # the hint while an "always" waits to be confirmed

    def on_mount(self) -> None:
        self.gate.key(self._clock())  # shown only now: the wait starts again
        self._show()

    def on_key(self, event: events.Key) -> None:
        answer, key = self._answer_of(event.key)
        if answer is not None:
            event.stop()  # settled here: the binding never sees it
        self._settle(self.gate.key(event.time, answer), key)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        # A click (Enter on a button never gets here: on_key took it). Each button's id
        # names its decision.
        if event.button.id is not None:
            self._settle(self.gate.click(self._clock(), Decision(event.button.id)), "it")

    def action_decide(self, value: str) -> None:
        # A binding run some other way than its key (the key itself stops in on_key).
        self._settle(self.gate.click(self._clock(), Decision(value)), "it")

    def _answer_of(self, key: str) -> tuple[Decision | None, str]:
        """The decision a key names here, and how to say that key, if any."""
        active = self.active_bindings.get(key)
        if active is None:
            return None, key
        if isinstance(active.node, Button) and active.binding.action == "press" and active.node.id:
            return Decision(active.node.id), key
        _, name, args = parse_action(active.binding.action)
        if active.node is self and name == "decide" and args:
            return Decision(str(args[0])), key
        return None, key

    def _settle(self, decision: Decision | None, key: str) -> None:
        if decision is not None:
            self.dismiss(decision)
            return
        selected = self.gate.selected
        if selected is not None:  # picked once: highlighted, and the hint asks to confirm it
            button = self.query_one(f"#{selected.value}", Button)
            button.focus()  # Enter confirms it too
            what = "always" if selected is Decision.ALWAYS else str(button.label)
            how = f"{key} again or Enter" if len(key) == 1 else "Enter or click it again"
            self._confirm = CONFIRM.format(what=what, how=how)
        self._show()

    def _show(self) -> None:
        """The hint: waiting for a pause, then ready (or asking to confirm a picked
        "always"); while it waits, again once the wait is over."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        left = self.gate.left(self._clock())
        self.hint.update(WAITING if left > 0 else READY if self.gate.selected is None else self._confirm)
        self.hint.set_class(left > 0, "-waiting")
        if left > 0:
            self._timer = self.set_timer(left, self._show)
