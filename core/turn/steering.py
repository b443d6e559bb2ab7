"""Messages the user steers into a running turn.

A steered message is not a new turn: it waits here until the turn's next request
boundary (after the tool outputs of the response that just ended), then the turn loop
commits it as a user message and the follow-up request carries it. A turn that ends
without another request leaves it waiting; whoever runs turns (Engine.submit) sends it
as the next turn, so a steered message is never lost. Codex does the same with its
session's pending input.
"""

from __future__ import annotations


class Steering:
    """The steered messages not yet sent, in the order given, each numbered once."""

    def __init__(self) -> None:
        self._waiting: list[tuple[int, str]] = []
        self._count = 0

    def add(self, text: str) -> None:
        self._count += 1
        self._waiting.append((self._count, text))

    def take(self) -> list[tuple[int, str]]:
        """Every waiting message with its number; none wait afterwards."""
        taken, self._waiting = self._waiting, []
        return taken

    def texts(self) -> list[str]:
        """What waits, without taking it (a front end shows it)."""
        return [text for _, text in self._waiting]

    def __bool__(self) -> bool:
        return bool(self._waiting)
