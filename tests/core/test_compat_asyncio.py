"""Canary for core/compat/asyncio.py: a child's pipes close through `Process._transport`."""

from __future__ import annotations

import asyncio

from rivulet.core.compat.asyncio import close_process_pipes


async def test_close_process_pipes_closes_the_childs_transport_and_pipes() -> None:
    proc = await asyncio.create_subprocess_exec("cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    transport = proc._transport  # type: ignore[attr-defined]  # (the canary's own look at it)
    assert isinstance(transport, asyncio.SubprocessTransport) and not transport.is_closing()
    close_process_pipes(proc)
    assert transport.is_closing()
    assert proc.stdin is not None and proc.stdin.is_closing()
    await proc.wait()  # (closing a running child's transport kills it)
