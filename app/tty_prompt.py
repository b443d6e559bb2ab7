"""One question on the controlling terminal, its answer read without a thread.

The event loop waits for the terminal to be readable (`add_reader`), so cancelling the
wait (Ctrl-C during exec's approval prompt) just stops it. A thread blocked in `read`
cannot be stopped: the process would wait for one more Enter before it could exit.
"""

from __future__ import annotations

import asyncio
import os


async def ask_tty(prompt: str) -> str:
    """Write `prompt` to /dev/tty and return the line typed (stripped; empty at end of
    input). A raw file descriptor: a terminal is not seekable, and Python's "r+" text mode
    wants it to be."""
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    loop = asyncio.get_running_loop()
    try:
        os.write(fd, prompt.encode())
        answer = b""
        while not answer.endswith(b"\n"):
            readable: asyncio.Future[None] = loop.create_future()
            loop.add_reader(fd, _settle, readable)
            try:
                await readable
            finally:
                loop.remove_reader(fd)
            chunk = os.read(fd, 1024)
            if not chunk:  # end of input: no answer
                break
            answer += chunk
        return answer.decode(errors="replace").strip()
    finally:
        os.close(fd)


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():  # the reader may fire again before it is removed
        future.set_result(None)
