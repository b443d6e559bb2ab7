"""What widgets tell the app: Textual messages that bubble up to it. A widget never
calls the app's methods (nor looks for them): it posts, and the app decides."""

from __future__ import annotations

from textual.message import Message


class OpenRawItem(Message):
    """The user asked for the raw committed item behind a transcript entry (a click)."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key
