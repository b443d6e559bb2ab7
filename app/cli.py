"""The `rivulet` command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from typing import Any

from rivulet.app.demo_server import DEMO_MODEL, DemoServer
from rivulet.app.doctor import add_doctor_parser
from rivulet.core.tools.router import AgentTools
from rivulet.core.tools.approval import ApprovalPolicy, ApprovalRequest, Decision, deny_all
from rivulet.core.turn.bus import BusEvent, EventBus, Notice
from rivulet.core.config import DEFAULT_BASE_URL, Settings, is_loopback, load_settings, safe_url
from rivulet.core.tools.router import tool_settings
from rivulet.core.turn.conversation import Conversation
from rivulet.core.errors import ConfigError, RivuletError, redact
from rivulet.core.tools.environ_scrub import scrub_own_environ
from rivulet.core.safe_log import install_log_filter
from rivulet.core.tools.shell import SECRET_ENV
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import (SessionError, SessionWriter, find_session, list_sessions, load_session,
                                  open_for_resume, sessions_dir)
from rivulet.core.protocol.transports import make_transport


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rivulet", description="A terminal client for the OpenAI Responses API.")
    parser.add_argument("--log-level", default="WARNING", help="log level for stderr (default WARNING)")
    parser.add_argument("--base-url", help="Responses API base URL (default $OPENAI_BASE_URL or OpenAI's; "
                        "with neither it nor a key, the built-in demo server)")
    parser.add_argument("--model", help="model name")
    parser.add_argument("--approval", choices=["ask", "auto-edit", "auto", "never-ask"], help="tool approval policy")
    parser.add_argument("--workspace", help="directory the tools work in (default: the current one)")
    parser.add_argument("--transport", choices=["sse", "ws", "auto"], help="sse, ws or auto (default auto)")
    parser.add_argument("--strict", action="store_true", default=None,
                        help="turn every tolerated protocol deviation into an error (for server developers)")
    sub = parser.add_subparsers(dest="command")
    ex = sub.add_parser("exec", help="run one turn headless and print the answer")
    ex.add_argument("prompt", help="the user message ('-' reads it from standard input)")
    ex.add_argument("--json", action="store_true", help="print one JSON object per line for every event")
    ex.add_argument("--base-url", help="Responses API base URL (default $OPENAI_BASE_URL or OpenAI's)")
    ex.add_argument("--model", help="model name")
    ex.add_argument("--instructions", help="system instructions for the model")
    ex.add_argument("--approval", choices=["ask", "auto-edit", "auto", "never-ask"],
                    help="tool approval policy (ask: prompt on the terminal; without one, tools are declined)")
    ex.add_argument("--workspace", help="directory the tools work in (default: the current one)")
    ex.add_argument("--transport", choices=["sse", "ws", "auto"],
                    help="HTTP streaming (SSE), the Responses WebSocket, or auto (WebSocket where offered)")
    ex.add_argument("--patch-tool", choices=["auto", "custom", "function", "off"],
                    help="offer apply_patch as a freeform custom tool, a JSON function, or not at all "
                    "(auto: custom on OpenAI's API, function elsewhere)")
    ex.add_argument("--strict", action="store_true", default=None,
                    help="turn every tolerated protocol deviation into an error")
    add_doctor_parser(sub)
    rs = sub.add_parser("resume", help="continue a saved session in the chat (a picker without an id)")
    rs.add_argument("id", nargs="?", help="session id (or a unique prefix of it), or the path of its file")
    rs.add_argument("--last", action="store_true", help="the most recent session")
    sub.add_parser("sessions", help="list saved sessions")
    exp = sub.add_parser("export", help="write a session as Markdown or JSON")
    exp.add_argument("id", help="session id (or prefix), or the path of its file")
    exp.add_argument("--format", choices=["md", "json"], default="md")
    exp.add_argument("-o", "--output", help="file to write (default: standard output)")
    rp = sub.add_parser("replay", help="play a recorded stream (.sse or .jsonl) through the chat UI")
    rp.add_argument("file", help="a recorded SSE body (.sse) or JSONL event file (.jsonl)")
    rp.add_argument("--speed", type=float, default=1.0, help="speed factor (2 = twice as fast; 0 = instant)")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="rivulet: %(levelname)s %(name)s: %(message)s")
    install_log_filter()
    if args.command == "exec":
        sys.exit(asyncio.run(run_exec(args)))
    if args.command == "sessions":
        sys.exit(run_sessions())
    if args.command == "export":
        sys.exit(run_export(args))
    if args.command == "replay":
        sys.exit(run_replay(args))
    if args.command == "doctor":
        from rivulet.app.doctor import run_doctor

        sys.exit(asyncio.run(run_doctor(args)))
    sys.exit(run_tui(args))


def run_sessions() -> int:
    from rivulet.app.picker import session_line

    sessions = list_sessions()
    if not sessions:
        print(f"no saved sessions in {sessions_dir()}")
    for session in sessions:
        print(session_line(session))
    return 0


def run_export(args: argparse.Namespace) -> int:
    from rivulet.core.store.export import to_json, to_markdown

    try:
        session = load_session(find_session(args.id))
    except SessionError as exc:
        return _fail(exc.message)
    text = to_markdown(session) if args.format == "md" else to_json(session)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from rivulet.app.tui import RivuletApp
    from rivulet.core.protocol.replay import ReplayTransport

    try:
        transport = ReplayTransport(Path(args.file), speed=args.speed)
    except (OSError, ValueError, RivuletError) as exc:
        return _fail(f"cannot replay {args.file}: {getattr(exc, 'message', exc)}")
    settings = Settings(base_url="http://replay.invalid/v1", model=f"replay of {Path(args.file).name}",
                        max_retries=0, max_follow_ups=max(0, len(transport.recordings) - 1), save_sessions=False)
    app = RivuletApp(settings, transport, replay=Path(args.file).name)
    app.run()
    return app.return_code or 0


def _session_for(args: argparse.Namespace, settings: Settings):
    """(the resumed session or None, the writer) for the chat; a new file unless resuming."""
    if args.command == "resume":
        if args.id:
            path = find_session(args.id)
        else:
            sessions = list_sessions()
            if not sessions:
                raise SessionError(f"no saved sessions in {sessions_dir()}")
            if args.last:
                path = sessions[0].meta.path
            else:
                from rivulet.app.picker import SessionPicker

                path = SessionPicker(sessions, settings.theme).run()
                if path is None:
                    return None, None, True
        writer, session = open_for_resume(path, load_session(path))  # locked elsewhere: a fork
        return session, writer, False
    if not settings.save_sessions:
        return None, None, False
    writer, _ = SessionWriter.create(model=settings.model, base_url=safe_url(settings.base_url))
    return None, writer, False


def _fail(message: str, code: int = 1) -> int:
    print(f"rivulet: error: {sanitize(redact(message))}", file=sys.stderr)
    return code


def settings_for(args: argparse.Namespace) -> tuple[Settings, DemoServer | None]:
    """Settings, and the embedded demo server when there is neither a key nor a URL."""
    settings = load_settings(base_url=args.base_url, model=args.model, instructions=getattr(args, "instructions", None),
                             approval=args.approval, workspace=args.workspace,
                             patch_tool=getattr(args, "patch_tool", None), transport=args.transport,
                             strict_protocol=getattr(args, "strict", None))
    # Commands the model writes must not find the key in /proc/<our pid>/environ.
    scrub_own_environ([v for k, v in os.environ.items() if k in SECRET_ENV] +
                      ([settings.api_key.get_secret_value()] if settings.api_key is not None else []))
    if settings.api_key is None and settings.base_url == DEFAULT_BASE_URL:
        demo = DemoServer().start()
        return settings.model_copy(update={"base_url": demo.base_url, "model": DEMO_MODEL}), demo
    if settings.api_key is None and not is_loopback(settings.base_url):
        raise ConfigError("OPENAI_API_KEY is not set (a key is needed for any server but a local one)")
    return settings, None


def run_tui(args: argparse.Namespace) -> int:
    try:
        settings, demo = settings_for(args)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    from rivulet.app.tui import RivuletApp

    try:
        tools = tool_settings(settings)
        session, writer, cancelled = _session_for(args, settings)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    except (SessionError, OSError) as exc:
        if demo is not None:
            demo.stop()
        return _fail(getattr(exc, "message", str(exc)))
    if cancelled:
        if demo is not None:
            demo.stop()
        return 0
    app = RivuletApp(settings, make_transport(settings), tool_settings=tools, demo=demo is not None,
                     session=session, session_writer=writer)
    try:
        app.run()
    finally:
        if demo is not None:
            demo.stop()
    return app.return_code or 0  # 1 after a crash


async def run_exec(args: argparse.Namespace) -> int:
    try:
        settings, demo = settings_for(args)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    try:
        tools_settings = tool_settings(settings)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    bus = EventBus()
    if args.json:
        bus.subscribe(_print_json)
    transport = make_transport(settings, lambda text: bus.publish(Notice(text)))
    approver = terminal_approver if args.prompt != "-" and _has_terminal() else deny_all
    tools = AgentTools(tools_settings, ApprovalPolicy(settings.approval, approver), bus)
    writer = None
    if settings.save_sessions:
        try:
            writer, _ = SessionWriter.create(model=settings.model, base_url=safe_url(settings.base_url))
        except OSError as exc:
            return _fail(f"cannot create the session file: {exc}")
    conversation = Conversation(settings, transport, bus, tools=tools, session=writer)
    try:
        result = await conversation.run_turn(prompt)
    except RivuletError as exc:
        await bus.close()
        partial = getattr(exc, "partial", None)
        if partial and not args.json:
            print(sanitize(partial))  # a cut answer is still the answer, shown as it is
        return _fail(f"{exc.kind}: {exc.message}")
    finally:
        await transport.aclose()
        if demo is not None:
            demo.stop()
    await bus.close()
    if not args.json:
        print(sanitize(result.last_message or ""))
    if result.stopped:
        print(f"rivulet: stopped: {sanitize(result.stopped)}", file=sys.stderr)
    return 0


def _has_terminal() -> bool:
    try:
        with open("/dev/tty"):
            return sys.stdin.isatty()
    except OSError:
        return False


async def terminal_approver(request: ApprovalRequest) -> Decision:
    """`exec --approval ask`: the question on the terminal (stderr), the answer from it."""
    what = f"run `{sanitize(request.title)}` {sanitize(request.detail)}" if request.kind == "shell" \
        else f"apply a patch ({sanitize(request.title)})"
    if request.kind == "patch":
        print(sanitize(request.detail), file=sys.stderr)
    prompt = f"rivulet: {what}? [y]es / [a]lways / [n]o / [s]top: "
    answer = await asyncio.to_thread(_read_tty, prompt)
    return {"y": Decision.YES, "a": Decision.ALWAYS, "s": Decision.STOP}.get(answer[:1].lower(), Decision.NO)


def _read_tty(prompt: str) -> str:
    with open("/dev/tty", "r+") as tty:
        tty.write(prompt)
        tty.flush()
        return tty.readline().strip()


def _print_json(event: BusEvent) -> None:
    # ensure_ascii: every control character (C0 and C1) leaves as a \u escape.
    line = json.dumps(event.to_json(), ensure_ascii=True, default=_default)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _default(value: Any) -> Any:
    return str(value)
