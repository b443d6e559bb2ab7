"""Plain mode's services for the command layer (app/commands/services.py), over its
printer and engine: a notice is a line, the status line's figures are kept from the bus
and its notes are dim lines, a compaction runs as a turn does (Ctrl-C stops it), a
resumed session shows its last messages, and there are no themes."""

from __future__ import annotations

import asyncio
import base64
import signal
import sys
from typing import TYPE_CHECKING, Any

from rivulet.core.turn import bus as b

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from rivulet.app.commands.results import Result, Severity
    from rivulet.app.plain.printer import PlainPrinter
    from rivulet.core.engine import Engine
    from rivulet.core.store.session import Session

KEYS = "Alt+Enter: new line · Up/Down: history · Ctrl-C: stop the turn · Ctrl-D: quit"
STYLES: dict[str, str | None] = {"information": None, "warning": "yellow", "error": "red"}
RESUMED_SHOWN = 6  # messages of a resumed session printed before the first prompt


class PlainNotify:
    def __init__(self, printer: PlainPrinter) -> None:
        self.printer = printer

    def __call__(self, text: str, /, *, severity: Severity = "information", timeout: float | None = None) -> None:
        self.printer.line(text, STYLES[severity])


class PlainStatus:
    """No status line: its figures, kept from the bus for /status, and its notes as dim lines."""

    def __init__(self, printer: PlainPrinter, engine: Engine) -> None:
        self.printer, self.engine = printer, engine
        self.usage: dict[str, Any] | None = None
        self.total_tokens = 0
        engine.bus.subscribe(self._usage, b.UsageUpdated)

    def _usage(self, event: b.BusEvent) -> None:
        if isinstance(event, b.UsageUpdated) and event.usage:
            total = event.usage.get("total_tokens")
            self.total_tokens += total if isinstance(total, int) and not isinstance(total, bool) else 0
            self.usage = event.usage

    @property
    def window(self) -> int | None:
        return self.engine.windows.choose(self.engine.settings).tokens

    def say(self, note: str | None) -> None:
        if note:
            self.printer.line(note, "dim")

    def show_model(self, model: str, effort: str | None, profile: str | None, window: int | None) -> None:
        pass  # the command's own lines say it

    def show_server(self, where: str) -> None:
        pass  # the command's own lines say it

    def show_sandbox(self, sandbox: str) -> None:
        pass

    def working(self, heading: str) -> None:
        self.printer.line(f"{heading}…", "dim")

    def idle(self, note: str | None, *, forget_usage: bool = False) -> None:
        if forget_usage:
            self.usage = None
        self.say(note)


class PlainTurns:
    """Commands run between turns here: none is running while one is typed."""

    def __init__(self, engine: Engine, show: Callable[[Result], Awaitable[object]]) -> None:
        self.engine, self.show = engine, show

    def running(self) -> bool:
        return False

    async def run_as_turn(self, work: Callable[[], Awaitable[Result]]) -> None:
        task = asyncio.ensure_future(work())
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self.engine.interrupt)  # Ctrl-C stops it, not rivulet
        try:
            result = await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            return
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            await self.engine.bus.drain()  # what it published is printed first
        await self.show(result)

    def cancel(self) -> bool:
        return False


class PlainTranscript:
    def __init__(self, printer: PlainPrinter) -> None:
        self.printer = printer

    async def start_over(self) -> None:
        pass  # what was printed stays printed

    async def show_session(self, session: Session) -> None:
        from rivulet.app.plain.resume import print_resumed

        print_resumed(self.printer, session, RESUMED_SHOWN)

    async def show_turn(self, turn: int) -> None:
        pass  # lines in the scrollback: the terminal's own scrolling finds an earlier turn


def osc52(text: str) -> None:
    """The terminal's clipboard, if it allows it (the text is clean: app/copying.py)."""
    sys.stdout.write(f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\x07")
    sys.stdout.flush()
