"""What a command answers, for each front end to render its own way: the chat as a note in
the transcript, a picker, a toast, a dialog or a view; plain mode as lines in the
scrollback and a numbered question; an ACP agent (issue 39) as its messages. A command
never draws anything itself: it returns one of these (None: nothing to show)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class Lines:
    """Text to read (plain, sanitised by the front end, never markup)."""

    lines: list[str]
    title: str | None = None


@dataclass(frozen=True)
class Say:
    """A one-line notice: a toast in the chat, a line in plain mode."""

    text: str
    severity: Severity = "information"
    timeout: float | None = None


@dataclass(frozen=True)
class Option:
    value: str
    label: str = ""  # default: the value
    help: str = ""


@dataclass(frozen=True)
class Choose:
    """A choice list: the value picked goes to `then` (nothing happens when none is).
    `search`: a front end with a field for it lists, while a query is typed there, what it
    answers: a Choose (its options, their pick going to its own `then`) or a Say (why none)."""

    title: str
    options: list[Option]
    then: Callable[[str], Awaitable[Result]]
    current: str | None = None
    note: str = ""
    search: Callable[[str], Awaitable[Result]] | None = None


@dataclass(frozen=True)
class Confirm:
    """A yes-or-no question over a diff (/undo, /redo): `then` gets "yes", "overwrite"
    (offered when `conflicts`: the user's own changes go too) or None (no)."""

    direction: str  # undo or redo
    lines: list[str]
    diff: str
    conflicts: bool
    then: Callable[[str | None], Awaitable[Result]]


@dataclass(frozen=True)
class Send:
    """An action: send `text` as the user's next message (a saved prompt, /init)."""

    text: str


# The front end's own views, opened by name; a front end without one says so in a line.
View = Literal["turn_diff", "transcript", "inspect", "mcp", "find", "raw_reasoning", "interrupt"]


@dataclass(frozen=True)
class Open:
    """An action: open one of the front end's views."""

    view: View


@dataclass(frozen=True)
class Quit:
    """An action: leave (the session is saved)."""


Result = Lines | Say | Choose | Confirm | Send | Open | Quit | None
