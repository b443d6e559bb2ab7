"""What each `rivulet` command does, once `cli` has parsed its arguments: the
settings, the chat, `exec`, `sessions`, `export`, `replay` and `doctor`."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

from rivulet.app.boot import BootError, cli_images, settings_for
from rivulet.core.config_sources import safe_url
from rivulet.core.errors import ConfigError, RivuletError, redact
from rivulet.core.safe_log import install_log_filter
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.core.tools.approval import ApprovalRequest, Decision
    from rivulet.core.turn.bus import BusEvent


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=(args.log_level or "WARNING").upper(), stream=sys.stderr,
                        format="rivulet: %(levelname)s %(name)s: %(message)s")
    install_log_filter()
    if args.command == "exec":
        return run_exec_command(args)
    if args.command == "sessions":
        return run_sessions(args)
    if args.command == "export":
        return run_export(args)
    if args.command == "replay":
        return run_replay(args)
    if args.command == "mcp":
        from rivulet.app.mcp.cli import run_mcp

        return run_mcp(args, args.server_argv)
    if args.command == "doctor":
        from rivulet.app.doctor import run_doctor

        return asyncio.run(run_doctor(args))
    return run_tui(args)


def run_sessions(args: argparse.Namespace) -> int:
    from rivulet.app.picker import SESSION_HEADER, session_line
    from rivulet.core.store.session import list_sessions, sessions_dir

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
        print(f"{others} more from other directories: rivulet sessions --all")
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


def _fail(message: str, code: int = 1) -> int:
    print(f"rivulet: error: {sanitize(redact(message))}", file=sys.stderr)
    return code


def run_tui(args: argparse.Namespace) -> int:
    """The chat. A plain start draws its first frame before the settings are validated
    (app/boot.py); `resume` prepares first, since its picker and session come before it."""
    from rivulet.app.boot import prepare
    from rivulet.core.config_sources import peek
    from rivulet.core.tools.mcp_config import parse_servers

    try:
        view = peek(base_url=args.base_url, model=args.model)
        parse_servers(view.mcp_servers)  # a bad [mcp_servers] table: one line, before anything is drawn
    except ConfigError as exc:
        return _fail(exc.message, 2)
    from rivulet.app.tui import RivuletApp

    if args.command == "resume":
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
    if path is not None and app.return_code == 0:
        print(f"To resume this session: rivulet resume {path.stem}" + (" (what was saved)" if unsaved else ""))
    return app.return_code or 0  # Textual sets 1 when the app died of an exception


def run_exec_command(args: argparse.Namespace) -> int:
    """`rivulet exec`. A reader that goes away (`| head -1`) ends the run quietly; Ctrl-C
    before the turn starts is one line too (during it: app/exec_signals.py)."""
    from rivulet.app.exec_signals import say_interrupted

    try:
        return asyncio.run(run_exec(args))
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return say_interrupted()


def _quiet_stdout() -> None:
    # Python flushes stdout once more at exit; on a closed pipe that would print an error.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


async def run_exec(args: argparse.Namespace) -> int:
    from rivulet.app.exec_signals import InterruptTurn, RetryLines, say_interrupted
    from rivulet.core.engine import Engine
    from rivulet.core.store.lazy_session import LazySessionWriter
    from rivulet.core.tools.approval import deny_all
    from rivulet.core.tools.mcp_wiring import McpWiring
    from rivulet.core.tools.router import tool_settings
    from rivulet.core.turn.bus import EventBus, Retrying

    try:
        settings, demo = settings_for(args, headless=True)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    try:
        tools_settings = tool_settings(settings)
        mcp = McpWiring.from_settings(settings)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    try:
        images = cli_images(args, settings)
    except RivuletError as exc:
        if demo is not None:
            demo.stop()
        return _fail(exc.message)
    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    bus = EventBus()
    reader_gone = asyncio.Event()
    if args.json:
        bus.subscribe(partial(_print_json, reader_gone))
    elif not args.quiet:
        bus.subscribe(RetryLines(), Retrying)
    approver = terminal_approver if args.prompt != "-" and _has_terminal() else deny_all
    # A blank prompt is no conversation worth a file; --ephemeral runs leave none either.
    saving = settings.save_sessions and not getattr(args, "ephemeral", False) and bool(prompt.strip())
    writer = LazySessionWriter(model=settings.model, base_url=safe_url(settings.base_url), frontend="exec") \
        if saving else None
    engine = Engine(settings, bus=bus, tool_settings=tools_settings, approver=approver, mcp=mcp, writer=writer)
    for refused in engine.conversation.project.refused if not args.json else []:  # (--json has it as a notice)
        print(f"rivulet: warning: AGENTS.md: {sanitize(refused)}", file=sys.stderr)
    # The turn waits for the servers; one that fails is a warning line, and the turn goes on.
    engine.start(notify=_warn_mcp, hint="rivulet mcp list --probe shows its stderr")
    turn = asyncio.ensure_future(engine.submit(prompt, images))
    interrupt = InterruptTurn(turn)
    gone = asyncio.ensure_future(reader_gone.wait())
    try:
        await asyncio.wait([turn, gone], return_when=asyncio.FIRST_COMPLETED)
        if not turn.done():  # nobody reads the answer any more: stop the turn
            turn.cancel()
            await asyncio.gather(turn, return_exceptions=True)
            raise BrokenPipeError
        result = turn.result()
    except RivuletError as exc:
        await bus.close()
        cut_answer = getattr(exc, "partial", None)
        if cut_answer and not args.json:
            print(sanitize(cut_answer))  # a cut answer is still the answer, shown as it is
        return _fail(f"{exc.kind}: {exc.message}")
    except asyncio.CancelledError:
        if not interrupt.fired:
            raise
        await bus.close()
        return say_interrupted()  # the conversation recorded the interrupt, as the chat's Esc does
    finally:
        if not interrupt.fired:
            interrupt.remove()
        gone.cancel()
        await engine.aclose()  # its servers, transport and session file
        if demo is not None:
            demo.stop()
    await bus.close()
    if reader_gone.is_set():
        raise BrokenPipeError
    if not args.json and not result.no_answer:
        print(sanitize(result.last_message or ""))
        sys.stdout.flush()
    if result.stopped:
        print(f"rivulet: stopped: {sanitize(result.stopped)}", file=sys.stderr)
    if result.no_answer:  # a script must not take silence for an answer: exit 1, as for a cut one
        print(f"rivulet: {result.no_answer}", file=sys.stderr)
    unsaved = writer.closing_note() if writer is not None else None
    if unsaved:  # the session is not whole: always the last line, and status 3
        print(f"rivulet: warning: {sanitize(unsaved)}", file=sys.stderr)
        return 3
    if result.no_answer:
        return 1
    return 0


def _warn_mcp(message: str, severity: str) -> None:
    if severity == "error":
        print(f"rivulet: warning: {sanitize(redact(message))}", file=sys.stderr)


def _has_terminal() -> bool:
    try:
        with open("/dev/tty"):
            return sys.stdin.isatty()
    except OSError:
        return False


async def terminal_approver(request: ApprovalRequest) -> Decision:
    """`exec --approval ask`: the question on the terminal (stderr), the answer from it."""
    from rivulet.app.exec_prompt import question_text  # what the chat's dialog shows, as plain lines
    from rivulet.app.tty_prompt import ask_tty  # read through the event loop: Ctrl-C can end it
    from rivulet.core.tools.approval import Decision
    answer = await ask_tty(question_text(request))
    return {"y": Decision.YES, "a": Decision.ALWAYS, "s": Decision.STOP}.get(answer[:1].lower(), Decision.NO)


def _print_json(reader_gone: asyncio.Event, event: BusEvent) -> None:
    if reader_gone.is_set():
        return
    # ensure_ascii: every control character (C0 and C1) leaves as a \u escape.
    line = json.dumps(event.to_json(), ensure_ascii=True, default=_default)
    try:
        sys.stdout.write(line + "\n")
    except BrokenPipeError:
        reader_gone.set()
        return
    # One flush per burst, not per line: it runs once the bus has handed over every
    # event queued so far (10,000 items are ~40,000 lines), so a reader still sees
    # each line as soon as the stream pauses.
    if not _flush_pending:
        _flush_pending.append(True)
        asyncio.get_running_loop().call_soon(_flush_stdout, reader_gone)


_flush_pending: list[bool] = []


def _flush_stdout(reader_gone: asyncio.Event) -> None:
    _flush_pending.clear()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        reader_gone.set()


def _default(value: Any) -> Any:
    return str(value)
