"""The engine's approval questions (`ApprovalRequested` on the bus) as the chat's modal
dialog: the user's answer resolves the request's future, which the waiting turn reads.

An interrupt cancels that future and closes the dialog (tui's interrupt handling); a
question already given up when it arrives is not shown at all."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.core.tools.approval_event import ApprovalRequested

if TYPE_CHECKING:
    from textual.screen import Screen

    from rivulet.app.bus_bridge import Handler
    from rivulet.core.tools.approval import Decision
    from rivulet.widgets.dialogs import ApprovalScreen


class AskingView(Protocol):
    """What the approvals need of the chat: a screen pushed, the user alerted."""

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = ...) -> Any: ...

    def alert(self, title: str, body: str) -> None: ...


class Approvals:
    """One question at a time, in the order asked: subagents ask at once, and a dialog
    pushed over another would take the keys meant for the one below (a double "y"
    answered both). The next is shown when the one before is answered, and mounted
    fresh, so its pause-in-typing gate starts then."""

    def __init__(self, view: AskingView) -> None:
        self.view = view
        self._shown: ApprovalScreen | None = None
        self._waiting: deque[ApprovalRequested] = deque()

    def routes(self) -> dict[type, Handler]:
        return {ApprovalRequested: self.ask}

    async def ask(self, event: ApprovalRequested) -> None:
        if event.decision.done():  # interrupted before it could be shown
            return
        if self._shown is not None and self._shown.is_attached:  # (an interrupt pops it unanswered)
            self._waiting.append(event)
            return
        self._show(event)

    def _show(self, event: ApprovalRequested) -> None:
        from rivulet.widgets.dialogs import ApprovalScreen

        request = event.request
        who = f"agent '{event.subagent}': " if event.subagent is not None else ""  # (alert() cleans it)
        self.view.alert("rivulet: approval needed", f"{who}{request.kind}: {request.title}")
        self._shown = ApprovalScreen(request, subagent=event.subagent)
        self.view.push_screen(self._shown, callback=partial(self._answered, event))

    def _answered(self, event: ApprovalRequested, decision: Decision) -> None:
        event.answer(decision)
        self._shown = None
        while self._waiting:
            waiting = self._waiting.popleft()
            if not waiting.decision.done():  # (one the interrupt gave up is dropped)
                self._show(waiting)
                return
