"""Issue 35, item 5, on the terminal: exec's and plain mode's approval prompt read its
answer from whatever was in the terminal's input, typed ahead during the turn. On a
pseudo-terminal here; the prompt's clock is the test's, so nothing waits for real but
one short pause (at most `QUIET_HERE`)."""

from __future__ import annotations

import asyncio
import os

import pytest

from rivulet.app.tty_answer import CONFIRM, DROPPED, _readable, _waiting, ask_answer
from rivulet.core.tools.approval import Decision

QUESTION = "── the command ──\nrivulet: Run this command (1 line)? [y]es / [a]lways / [n]o / [s]top: "
PROMPT = "[y]es / [a]lways / [n]o / [s]top: "
QUIET_HERE = 0.2


class Clock:
    """Stands still, or moves `step` seconds at each reading."""

    def __init__(self) -> None:
        self.now, self.step = 100.0, 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Pty:
    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.out = ""

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    async def taken(self) -> None:
        """Until the prompt has read what was typed (it drops it)."""
        async with asyncio.timeout(20):
            while _waiting(self.slave):
                await asyncio.sleep(0.005)

    async def until(self, text: str, count: int = 1) -> None:
        """Read what the prompt wrote until `text` has appeared `count` times."""
        async with asyncio.timeout(20):
            while self.out.count(text) < count:
                await _readable(self.master, None)
                self.out += os.read(self.master, 65536).decode(errors="replace")


@pytest.fixture
def pty():
    p = Pty()
    yield p
    p.close()


def _ask(pty: Pty, quiet: float = 0.0, clock: Clock | None = None) -> asyncio.Task[Decision]:
    return asyncio.ensure_future(ask_answer(QUESTION, tty=os.ttyname(pty.slave), quiet=quiet,
                                            clock=clock or Clock()))


async def test_what_was_typed_ahead_is_dropped_and_said(pty):
    pty.type("a\na\ny\nhalf a li")  # typed during the turn: lines and a line begun
    await pty.until("half a li")  # echoed: the terminal holds it
    task = _ask(pty)
    await pty.until(PROMPT)
    assert DROPPED.strip() in pty.out and not task.done()
    pty.type("n\n")
    assert await task is Decision.NO


async def test_keys_on_through_the_opening_are_dropped_until_a_pause(pty):
    clock = Clock()
    task = _ask(pty, quiet=QUIET_HERE, clock=clock)
    await pty.until("── the command ──")
    clock.now += QUIET_HERE / 2  # typing goes on as the question opens, with no pause
    pty.type("y\na\na\n")
    await pty.until(DROPPED.strip())
    await pty.taken()
    assert not task.done() and PROMPT not in pty.out  # no answer prompt while no pause came
    clock.step = 1.0  # from now on a pause
    await pty.until(PROMPT)
    pty.type("n\n")
    assert await task is Decision.NO
    assert pty.out.count(DROPPED.strip()) == 1


async def test_always_is_typed_twice(pty):
    task = _ask(pty)
    await pty.until(PROMPT)
    pty.type("a\n")
    await pty.until(CONFIRM)
    assert not task.done()
    pty.type("\n")  # Enter alone: back to the question, nothing given
    await pty.until(PROMPT, count=2)
    pty.type("a\n")
    await pty.until(CONFIRM, count=2)
    pty.type("a\n")
    assert await task is Decision.ALWAYS


async def test_end_of_input_is_no(pty):
    task = _ask(pty)
    await pty.until(PROMPT)
    pty.type("\x04")  # Ctrl-D on an empty line
    assert await task is Decision.NO
