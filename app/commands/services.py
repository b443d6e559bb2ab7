"""What a command is given: the few typed services it needs, one Protocol per concern,
never the App. Each front end builds one `Services` over its own parts (the chat in
app/tui_services.py, plain mode in app/plain/services.py), and each command module says
what it reads in a `Needs` protocol made of the `Has...` ones below, which mypy checks
against `Services`.

A command that needs more adds a concern here, and every front end provides it (or
answers `None`, as plain mode does for themes)."""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rivulet.app.commands.results import Result, Severity
    from rivulet.core.engine import Engine
    from rivulet.core.prompts.shell_context import ShellContext
    from rivulet.core.store.session import Session


class Notify(Protocol):
    """A one-line notice (plain text: the front end sanitises it)."""

    def __call__(self, text: str, /, *, severity: Severity = "information", timeout: float | None = None) -> None: ...


class Status(Protocol):
    """The status line: what it shows, and the notes it says."""

    @property
    def usage(self) -> dict[str, Any] | None: ...  # the last response's usage: what the context holds

    @property
    def window(self) -> int | None: ...

    @property
    def total_tokens(self) -> int: ...  # this run's

    def say(self, note: str | None) -> None: ...

    def show_model(self, model: str, effort: str | None, profile: str | None, window: int | None) -> None: ...

    def show_server(self, where: str) -> None: ...  # the server's safe URL, after a /profile switch

    def show_sandbox(self, sandbox: str) -> None: ...

    def working(self, heading: str) -> None: ...

    def idle(self, note: str | None, *, forget_usage: bool = False) -> None: ...


class Turns(Protocol):
    """The conversation's turns, as the front end runs them."""

    def running(self) -> bool: ...  # a turn (or a compaction) is under way

    async def run_as_turn(self, work: Callable[[], Awaitable[Result]]) -> None:
        """`work` in the turn's place (/compact): the stop key interrupts it; its result is
        shown when it ends (the chat returns at once, plain mode when it has ended)."""

    def cancel(self) -> bool: ...  # stop the running turn (False: none runs)


class TranscriptView(Protocol):
    """What the user reads of the conversation."""

    async def start_over(self) -> None: ...  # /new, /resume: the old conversation's view goes

    async def show_session(self, session: Session) -> None: ...  # /resume: the session's history

    async def show_turn(self, turn: int) -> None: ...  # /search: the hit's turn of the session shown


class Looks(Protocol):
    """Themes: the full-screen chat's."""

    @property
    def theme(self) -> str: ...

    def set_theme(self, name: str) -> None: ...


@dataclass(frozen=True, eq=False)
class Services:
    """Everything a command may be given; a command reads only what its `Needs` names."""

    engine: Engine  # the running conversation: its settings, transport, tools, session file
    notify: Notify
    status: Status
    turns: Turns
    transcript: TranscriptView
    clipboard: Callable[[str], None]  # the terminal's clipboard (OSC 52)
    keys: str  # the front end's keys, the last line of /help
    context: ShellContext  # what `!cmd`s printed, for the next message
    workspace: Path | None = None  # where the tools work (None: no tools)
    looks: Looks | None = None  # None: no themes here
    args: argparse.Namespace | None = None  # the command line, for /profile's reload


class HasEngine(Protocol):
    @property
    def engine(self) -> Engine: ...


class HasNotify(Protocol):
    @property
    def notify(self) -> Notify: ...


class HasStatus(Protocol):
    @property
    def status(self) -> Status: ...


class HasTurns(Protocol):
    @property
    def turns(self) -> Turns: ...


class HasTranscript(Protocol):
    @property
    def transcript(self) -> TranscriptView: ...


class HasClipboard(Protocol):
    @property
    def clipboard(self) -> Callable[[str], None]: ...


class HasWorkspace(Protocol):
    @property
    def workspace(self) -> Path | None: ...


class HasLooks(Protocol):
    @property
    def looks(self) -> Looks | None: ...


class HasArgs(Protocol):
    @property
    def args(self) -> argparse.Namespace | None: ...


class HasContext(Protocol):
    @property
    def context(self) -> ShellContext: ...


class HasKeys(Protocol):
    @property
    def keys(self) -> str: ...
