"""What each `rivulet` command does, once `cli` has parsed its arguments: the
settings, the chat, `sessions`, `export`, `replay`; `exec` is app/exec_run.py, `doctor`
app/doctor.py."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from functools import partial
from typing import TYPE_CHECKING

from rivulet.app.boot import BootError
from rivulet.app.boot import fail as _fail
from rivulet.core.errors import ConfigError, RivuletError
from rivulet.core.safe_log import install_log_filter
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    pass


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=(args.log_level or "WARNING").upper(), stream=sys.stderr,
                        format="rivulet: %(levelname)s %(name)s: %(message)s")
    install_log_filter()
    if args.command == "exec":
        from rivulet.app.exec_run import run_exec_command

        return run_exec_command(args)
    if args.command == "sessions":
        return run_sessions(args)
    if args.command == "export":
        return run_export(args)
    if args.command == "replay":
        return run_replay(args)
    if args.command == "undo":
        from rivulet.app.undo_cli import run_undo

        return run_undo(args)
    if args.command == "mcp":
        from rivulet.app.mcp.cli import run_mcp

        return run_mcp(args, args.server_argv)
    if args.command == "acp":
        from rivulet.app.acp.run import run_acp_command

        return run_acp_command(args)
    if args.command == "doctor":
        from rivulet.app.doctor_run import run_doctor

        return asyncio.run(run_doctor(args))
    return run_tui(args)


def run_sessions(args: argparse.Namespace) -> int:
    if args.sessions_command == "search":
        from rivulet.app.session_search import run_search

        return run_search(args)
    from rivulet.app.picker import SESSION_HEADER, session_line
    from rivulet.core.config_sources import sessions_dir
    from rivulet.core.store.session import list_sessions

    here = os.getcwd()
    sessions = list_sessions()
    mine = [s for s in sessions if s.meta.cwd == here]
    shown = mine + [s for s in sessions if s.meta.cwd != here] if args.all else mine
    print(sanitize(f"Sessions in {sessions_dir()}" + ("" if args.all else f", started in {here}")))
    if not shown:
        print("(none)")
    else:
        print(SESSION_HEADER)
        for session in shown:
            print(session_line(session))
    others = len(sessions) - len(mine)
    if others and not args.all:
        from rivulet.core.command_name import command_name

        print(f"{others} more from other directories: {command_name()} sessions --all")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rivulet.core.store.export import to_json, to_markdown
    from rivulet.core.store.session import SessionError, find_session, load_session

    try:
        session = load_session(find_session(args.id))
    except SessionError as exc:
        return _fail(exc.message)
    text = to_markdown(session) if args.format == "md" else to_json(session)
    if args.output:
        from rivulet.core.store.write_file import write_private

        try:  # never through a link planted at the name
            write_private(Path(args.output), text)
        except OSError as exc:
            return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rivulet.app.replay import replay_app

    try:
        app = replay_app(Path(args.file), speed=args.speed)
    except (OSError, ValueError, RivuletError) as exc:
        return _fail(f"cannot replay {args.file}: {getattr(exc, 'message', exc)}")
    app.run()
    return app.return_code or 0


def run_tui(args: argparse.Namespace) -> int:
    """The chat. A plain start, and `resume` with an id or --last, draw their first frame
    before the settings are validated and the session read (app/boot.py); `resume` with
    its picker prepares first, since the picker and the session come before the chat."""
    from rivulet.app.plain.choose import wants_plain

    if wants_plain(args):  # lines on the terminal's own scrollback (app/plain)
        from rivulet.app.plain.chat import run_plain_command

        return run_plain_command(args)
    from rivulet.app.boot import prepare
    from rivulet.core.config_sources import peek
    from rivulet.core.tools.mcp_config import parse_servers

    try:
        from rivulet.app.boot import all_overrides

        view = peek(base_url=args.base_url, model=args.model, profile=args.profile,
                    overrides=all_overrides(args))
        parse_servers(view.mcp_servers)  # a bad [mcp_servers] table: one line, before anything is drawn
    except ConfigError as exc:
        return _fail(exc.message, 2)
    from rivulet.app.gc_pacing import GcPacing
    from rivulet.app.tui import RivuletApp

    pacing = GcPacing()  # process-wide: the real chat's, not the tests' apps
    if args.command == "resume" and (args.id or args.last):
        # As a fresh start: the first frame and the composer at once, the session read in the
        # boot thread (issue 36.9). An id that names no session is one line, nothing drawn.
        from rivulet.core.store.session import SessionError, find_session

        try:
            if args.id:
                find_session(args.id)
        except SessionError as exc:
            return _fail(exc.message)
        app = RivuletApp.booting(view, pacing.after_boot(partial(prepare, args)), demo=args.demo or view.needs_demo)
    elif args.command == "resume":  # the picker: the session and the settings first
        try:
            ready = prepare(args)
        except BootError as exc:
            return _fail(exc.message, exc.code)
        if ready.cancelled:
            ready.stop()
            return 0
        app = RivuletApp.from_ready(ready)
    else:
        app = RivuletApp.booting(view, partial(prepare, args), demo=args.demo or view.needs_demo)
    pacing.install(app.bridge)  # at the first request sent
    try:
        app.run()
    finally:
        if app.ready is not None:
            app.ready.stop()
    if app.boot_error is not None:
        return _fail(app.boot_error.message, app.boot_error.code)
    writer = app.session_writer  # /new or /resume may have changed it
    path = writer.path if writer is not None else None
    unsaved = writer.closing_note() if writer is not None else None
    if unsaved:
        print(f"rivulet: warning: {sanitize(unsaved)}", file=sys.stderr)
    if app.settings is not None and app.return_code == 0:  # the conversation stays in the scrollback
        from rivulet.app.transcript_out import print_on_quit

        everything = args.print_on_exit or app.settings.print_on_exit
        print_on_quit(app.conversation, everything, app.settings.exit_recap_turns, path)
    if path is not None and app.return_code == 0:
        from rivulet.app.command_name import command_name

        print(f"To resume this session: {command_name()} resume {path.stem}" + (" (what was saved)" if unsaved else ""))
    return app.return_code or 0  # Textual sets 1 when the app died of an exception
