"""`rivulet acp`: the agent on stdin and stdout until stdin ends.

Stdout is the protocol's alone: its descriptor is moved aside for the messages and
descriptor 1 points at stderr, so a stray print (ours, a library's) can never corrupt
the stream. Logs and notes go to stderr. Stdin closing (the editor gone), SIGTERM or
SIGHUP stops every turn, closes every engine and session file, and ends the process with 0."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from typing import cast

log = logging.getLogger("rivulet.acp")


def run_acp_command(args: argparse.Namespace) -> int:
    sys.stdout.flush()
    protocol_out = os.dup(1)
    os.dup2(2, 1)  # what anything else writes to "stdout" goes to stderr
    try:
        return asyncio.run(serve(args, protocol_out))
    except KeyboardInterrupt:
        return 130


async def serve(args: argparse.Namespace, protocol_out: int) -> int:
    from acp import Agent, run_agent

    from rivulet.app.acp.agent import RivuletAgent
    from rivulet.app.acp.stdio import open_stdio

    try:
        transport = await open_stdio(protocol_out)
    except (OSError, ValueError) as exc:
        print(f"rivulet: acp needs pipes on stdin and stdout (an editor starts it): {exc}", file=sys.stderr)
        return 2
    agent = RivuletAgent(args)
    serving = asyncio.current_task()
    assert serving is not None
    # The editor closing us (SIGTERM, or SIGHUP with its terminal) ends as stdin's end does.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        asyncio.get_running_loop().add_signal_handler(signum, serving.cancel)
    try:
        # (cast: the methods it leaves out, fork, resume, list, are the SDK router's method-not-found)
        await run_agent(cast("Agent", agent), transport)
    except asyncio.CancelledError:
        log.info("terminated: the sessions are closed")
    except Exception as exc:  # the connection failed: one line, the sessions still closed
        log.error("the connection ended: %s", exc)
    finally:
        await agent.close()
    return 0
