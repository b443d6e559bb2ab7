"""The engine's approval questions (`ApprovalRequested` on the bus) as the chat's modal
dialog: the user's answer resolves the request's future, which the waiting turn reads.

An interrupt cancels that future and closes the dialog (tui's interrupt handling); a
question already given up when it arrives is not shown at all."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.core.tools.approval_event import ApprovalRequested

if TYPE_CHECKING:
    from textual.screen import Screen

    from rivulet.app.bus_bridge import Handler


class AskingView(Protocol):
    """What the approvals need of the chat: a screen pushed, the user alerted."""

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = ...) -> Any: ...

    def alert(self, title: str, body: str) -> None: ...


class Approvals:
    def __init__(self, view: AskingView) -> None:
        self.view = view

    def routes(self) -> dict[type, Handler]:
        return {ApprovalRequested: self.ask}

    async def ask(self, event: ApprovalRequested) -> None:
        from rivulet.widgets.dialogs import ApprovalScreen

        if event.decision.done():  # interrupted before it could be shown
            return
        request = event.request
        who = f"agent '{event.subagent}': " if event.subagent is not None else ""  # (alert() cleans it)
        self.view.alert("rivulet: approval needed", f"{who}{request.kind}: {request.title}")
        self.view.push_screen(ApprovalScreen(request, subagent=event.subagent), callback=event.answer)
