"""`rivulet exec`: one prompt, one turn, without a screen. The engine is built as the
chat builds it (core/engine.py); what the turn does goes to stderr as lines, or to
stdout as JSON events (--json), and the exit code says how it ended."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rivulet.app.boot import cli_images, settings_for
from rivulet.app.boot import fail as _fail
from rivulet.core.errors import ConfigError, RivuletError, redact
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.core.tools.approval import ApprovalRequest, Decision
    from rivulet.core.turn.bus import BusEvent, Handler


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
    from rivulet.app.subagent_lines import SubagentLines
    from rivulet.core.assembly import FrontEnd, NewSession, open_conversation, open_session, prepare
    from rivulet.core.tools.approval_event import Answering, ApprovalRequested
    from rivulet.core.turn.bus import EventBus, Retrying

    schema = None
    if args.output_schema is not None:  # a bad file is said before anything starts
        from rivulet.core.structured_output import OutputSchema, SchemaFileError

        try:
            schema = OutputSchema.load(Path(args.output_schema))
        except SchemaFileError as exc:
            return _fail(exc.message, 2)
    try:
        settings, demo = settings_for(args, headless=True, say=_say)
    except ConfigError as exc:
        return _fail(exc.message, 2)
    try:
        ground = prepare(settings, _say)  # the tools, the workspace recovered first, the tables read
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
    if args.json:  # (an approval question is the terminal's, never a line of the stream)
        bus.subscribe(partial(_print_json, reader_gone), when=lambda event: not isinstance(event, ApprovalRequested))
    elif not args.quiet:
        bus.subscribe(cast("Handler", RetryLines()), Retrying)  # subscribed to Retrying only
        bus.subscribe(_subagent_lines(), *SubagentLines.TYPES)
    # A blank prompt is no conversation worth a file; --ephemeral runs leave none either.
    saving = settings.save_sessions and not args.ephemeral and bool(prompt.strip())
    _, writer = open_session(settings, NewSession("exec") if saving else None)
    ground.writer = writer
    _hook_lines(args, ground, bus)
    # Questions on the terminal; with none (or the prompt on stdin) nobody is asked: each is declined.
    asks = Answering(terminal_approver) if args.prompt != "-" and _has_terminal() else None
    # exec prints no bus notice, but what concerns the workspace's files is a stderr line.
    front = FrontEnd(name="exec", bus=bus, asks=asks, notes=None if args.json else _note, servers=_warn_mcp)
    engine = open_conversation(ground, front)
    if schema is not None:
        engine.conversation.text_format = schema.text_format()
    for refused in engine.conversation.project.refused if not args.json else []:  # (--json has it as a notice)
        print(f"rivulet: warning: AGENTS.md: {sanitize(refused)}", file=sys.stderr)
    # The turn waits for the servers; one that fails is a warning line, and the turn goes on.
    engine.start()
    turn: asyncio.Future[Any] = asyncio.ensure_future(engine.submit(prompt, images))
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
        if cut_answer and not args.json and schema is None:  # (a cut JSON answer is no JSON)
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
        await _checkpoint_written(engine)  # its notice (a turn without one) while the loop can say it
        await engine.aclose()  # the session_end hooks, its servers, transport and session file
        if demo is not None:
            demo.stop()
    await bus.close()
    if reader_gone.is_set():
        raise BrokenPipeError
    unusable = schema.problem(result.last_message or "") if schema is not None and not result.no_answer else None
    if unusable:  # stdout has the schema's JSON or nothing
        _fail(unusable)
    elif schema is not None and not args.json and not result.no_answer:
        print(json_answer(result.last_message or ""), flush=True)
    elif not args.json and not result.no_answer:
        print(sanitize(result.last_message or ""))
        _print_sources(result.sources)
        sys.stdout.flush()
    if result.stopped:
        print(f"rivulet: stopped: {sanitize(result.stopped)}", file=sys.stderr)
    if result.no_answer:  # a script must not take silence for an answer: exit 1, as for a cut one
        print(f"rivulet: {sanitize(result.no_answer)}", file=sys.stderr)
    unsaved = writer.closing_note() if writer is not None else None
    if unsaved:  # the session is not whole: always the last line, and status 3
        print(f"rivulet: warning: {sanitize(unsaved)}", file=sys.stderr)
        return 3
    if result.no_answer or unusable:
        return 1
    return 0


def json_answer(text: str) -> str:
    """The answer checked against --output-schema, as the model wrote it; with a character a
    terminal could act on (inside a string: JSON allows them raw), the same JSON in ASCII."""
    text = text.strip()
    return text if sanitize(text) == text else json.dumps(json.loads(text), ensure_ascii=True)


def _subagent_lines() -> Handler:
    """Subagents on stderr: a line when each starts, per tool call it makes, when it ends."""
    from rivulet.app.subagent_lines import SubagentLines

    lines = SubagentLines()

    def show(event: BusEvent) -> None:
        line = lines(event)
        if line is not None:
            print(f"rivulet: {line}", file=sys.stderr, flush=True)

    return show


def _say(text: str) -> None:
    print(f"rivulet: {text}", file=sys.stderr)


def _note(text: str, severity: str) -> None:
    """A note about the workspace's files: waiting for another rivulet running a tool in
    it, a turn without a checkpoint."""
    print(f"rivulet: {sanitize(text)}", file=sys.stderr, flush=True)


async def _checkpoint_written(engine: Any) -> None:
    checkpoints = engine.agent_tools.checkpoints if engine.agent_tools is not None else None
    if checkpoints is not None:
        await asyncio.to_thread(checkpoints.wait)  # (a notice it hands to the loop runs before this returns)


def _print_sources(sources: list[Any]) -> None:
    """The web pages and files the answer cites, after it, numbered as the chat shows them
    (citation_line: sanitised, bounded). --json has them in turn.completed."""
    if sources:
        from rivulet.core.hosted_items import citation_line

        print("\nSources\n" + "".join(citation_line(ref) + "\n" for ref in sources), end="")


def _hook_lines(args: argparse.Namespace, ground: Any, bus: Any) -> None:
    """exec's side of its hooks: their notes on stderr (in the JSON stream with --json);
    the workspace's own, when not trusted, said once."""
    hooks = ground.hooks
    if hooks is not None and hooks.ignored and not args.json:
        print(f"rivulet: warning: {sanitize(hooks.ignored)}", file=sys.stderr)
    if hooks is None or not hooks.hooks or args.json:
        return  # no hook: none of their machinery is imported
    from rivulet.app.hook_lines import print_hook_note
    from rivulet.core.hooks.events import HookNote

    bus.subscribe(partial(print_hook_note, quiet=args.quiet), HookNote)


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
    from rivulet.app.tty_answer import ask_answer  # typed-ahead keys dropped; read through the event loop

    return await ask_answer(question_text(request))


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
