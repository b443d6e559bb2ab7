"""`rivulet undo`: /undo for scripts. The same plan, restore and record as the chat's
(core/checkpoints/actions.py); it shows what it will do and applies it with --yes, or
when the user answers y on the terminal.

It first finishes a restore a kill interrupted (one line on stderr), and waits for
another rivulet that runs a tool in the workspace (one line too) before it changes files.
A turn without a checkpoint (its store's disk was full) is named with its reason.

Exit codes: 0 done (or nothing to do with --dry-run), 1 nothing to undo or redo, or
the restore failed (every file as before), 2 a question nobody can answer (no
terminal and no --yes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rivulet.core.checkpoints.actions import carry_out, describe, outcome, propose, without_checkpoint
from rivulet.core.checkpoints.recovery import recover_at_start
from rivulet.core.checkpoints.restore import choose_session, diff_text, no_checkpoint
from rivulet.core.checkpoints.store import CheckpointStore
from rivulet.core.checkpoints.turn_lock import RESTORING, TurnLock
from rivulet.core.errors import RivuletError
from rivulet.core.sanitize import sanitize


def _record(session: str) -> Callable[[dict[str, Any]], None] | None:
    """The session file's `restore` record, when the file exists and no chat holds it."""
    from rivulet.core.config_sources import sessions_dir
    from rivulet.core.store.session import SessionWriter

    path = sessions_dir() / f"{session}.jsonl"
    if not path.is_file():
        return None

    def write(record: dict[str, Any]) -> None:
        try:
            writer = SessionWriter(path)
        except (RivuletError, OSError) as exc:
            print(sanitize(f"rivulet: warning: the session file was not told ({getattr(exc, 'message', exc)})"),
                  file=sys.stderr)
            return
        writer.restored(record)
        writer.close()

    return write


def run_undo(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace or os.getcwd()).expanduser()
    if not workspace.is_dir():
        print(sanitize(f"rivulet: workspace {workspace} is not a directory"), file=sys.stderr)
        return 2
    recovered = recover_at_start(workspace)
    if recovered:
        print(f"rivulet: {recovered}", file=sys.stderr)
    store = CheckpointStore(workspace)
    direction = "redo" if args.redo else "undo"
    try:
        session = choose_session(store, args.session, direction)
        p = propose(store, session, direction, max(1, args.turns)) if session else None
        missing = no_checkpoint(store, session) if session and direction == "undo" else []
    except (RivuletError, OSError) as exc:
        print(sanitize(f"rivulet: {getattr(exc, 'message', None) or exc}"), file=sys.stderr)
        return 1
    for cp in missing:  # newer than what can be undone: said, and left as they are
        print(f"rivulet: {without_checkpoint(cp)}" + ("; its changes stay" if p is not None else ""),
              file=sys.stderr)
    if p is None:
        if not missing:
            print(f"rivulet: nothing to {direction} in {sanitize(str(store.workspace))}", file=sys.stderr)
        return 1
    assert session is not None  # a plan is only made for a session
    chosen = "" if args.session else \
        f" (the latest in this workspace with a turn to {direction}; --session picks another)"
    print(sanitize(f"Session {session}{chosen}"))
    for line in describe(p):
        print(line)
    diff = diff_text(store, p)
    if diff:
        print(sanitize(diff), end="" if diff.endswith("\n") else "\n")
    if args.dry_run:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            print(f"rivulet: nothing was changed: add --yes to {direction} without a question", file=sys.stderr)
            return 2
        from rivulet.app.tty_prompt import ask_tty

        answer = asyncio.run(ask_tty(f"{direction.capitalize()} this? [y/N] "))
        if answer.lower() not in ("y", "yes"):
            print("Nothing was changed.")
            return 0
    lock = TurnLock(workspace, session)
    try:  # another rivulet's turn in this workspace ends first (its checkpoint then names what it changed)
        lock.hold_blocking(RESTORING, say=lambda text: print(f"rivulet: {text}", file=sys.stderr, flush=True))
    except KeyboardInterrupt:
        print("rivulet: interrupted: nothing was changed", file=sys.stderr)
        return 130
    except OSError as exc:
        print(sanitize(f"rivulet: the workspace's lock cannot be taken ({exc.strerror or exc}): nothing was changed"),
              file=sys.stderr)
        return 1
    try:
        result = carry_out(store, p, overwrite=args.force, record=_record(session) if session else None)
    except RivuletError as exc:
        print(sanitize(f"rivulet: {exc.message}"), file=sys.stderr)
        return 1
    finally:
        lock.release()
    print(outcome(p, result))
    return 0
