"""An approval question on the terminal (exec's prompt, plain mode's), answered under the
chat dialog's rule (core/tools/answer_gate.py): keys typed before or as the question
opened never answer it, and "always" is asked twice.

What was typed ahead waits in the terminal's input buffer: it is dropped when the
question opens (tcflush). Then, until the keyboard has been quiet for the gate's pause,
the terminal is read key by key without echo and every key is dropped and restarts the
wait; a line saying so appears at the first one. Only then does the answer prompt
appear, read as a line as before. "a" asks again, and only "a" there gives "always".
Reads go through the event loop (as app/tty_prompt.py's), so Ctrl-C ends them."""

from __future__ import annotations

import asyncio
import fcntl
import os
import struct
import termios
import time
from collections.abc import Callable

from rivulet.core.tools.answer_gate import QUIET, AnswerGate
from rivulet.core.tools.approval import Decision

DROPPED = "rivulet: keys typed as the question opened were dropped: answer after a pause\n"
CONFIRM = "rivulet: yes for the session? Type a again to confirm, Enter to go back: "
KEYS = {"y": Decision.YES, "a": Decision.ALWAYS, "n": Decision.NO, "s": Decision.STOP}


async def ask_answer(question: str, tty: str = "/dev/tty", quiet: float = QUIET,
                     clock: Callable[[], float] = time.monotonic) -> Decision:
    """`question` on the terminal; its last line is the prompt for the answer. End of
    input is "no"."""
    text, _, prompt = question.rpartition("\n")
    fd = os.open(tty, os.O_RDWR | os.O_NOCTTY)
    try:
        gate = AnswerGate(clock(), quiet)
        shown = text + "\n"
        while True:
            await _wait_for_a_pause(fd, gate, clock, shown)
            shown = ""
            os.write(fd, (CONFIRM if gate.selected else prompt).encode())
            line = await _read_line(fd)
            if line is None:
                return Decision.NO
            if gate.selected and not line:
                gate.key(clock())  # Enter alone: back to the question
                continue
            # The line came after the pause, so it counts; the next prompt waits again.
            decision = gate.key(clock(), KEYS.get(line[:1].lower(), Decision.NO))
            if decision is not None:
                return decision
    finally:
        os.close(fd)


async def _wait_for_a_pause(fd: int, gate: AnswerGate, clock: Callable[[], float], text: str) -> None:
    """Show `text` with the keyboard already held, drop what was typed ahead, then every
    key until the gate's pause has passed."""
    saved = termios.tcgetattr(fd)
    keys = list(saved)
    keys[3] &= ~(termios.ICANON | termios.ECHO)  # key by key, unseen; Ctrl-C still interrupts
    keys[6] = list(saved[6])
    keys[6][termios.VMIN], keys[6][termios.VTIME] = 0, 0
    termios.tcsetattr(fd, termios.TCSANOW, keys)
    try:
        typed_ahead = _waiting(fd) > 0  # (a line begun before the question is readable only now)
        termios.tcflush(fd, termios.TCIFLUSH)
        os.write(fd, text.encode())
        said = False
        if typed_ahead:
            gate.key(clock())
            said = _say_dropped(fd)
        while (left := gate.left(clock())) > 0:
            if await _readable(fd, left):
                os.read(fd, 4096)
                gate.key(clock())
                said = said or _say_dropped(fd)
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def _say_dropped(fd: int) -> bool:
    os.write(fd, DROPPED.encode())
    return True


def _waiting(fd: int) -> int:
    """Bytes waiting to be read."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


async def _readable(fd: int, timeout: float | None) -> bool:
    """Whether `fd` has something to read within `timeout` seconds (None: waits)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, _wake, ready)
    try:
        await asyncio.wait_for(ready, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(fd)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():  # the reader may fire again before it is removed
        future.set_result(None)


async def _read_line(fd: int) -> str | None:
    """One line typed on the terminal (stripped), None at end of input."""
    line = b""
    while not line.endswith(b"\n"):
        await _readable(fd, None)
        chunk = os.read(fd, 1024)
        if not chunk:
            return line.decode(errors="replace").strip() if line else None
        line += chunk
    return line.decode(errors="replace").strip()
