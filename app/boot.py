"""Everything a chat or `exec` run needs before its first request: the settings validated,
the embedded demo server, the tools' settings, the MCP table checked, `--image` files read,
the session file and the transport.

The chat draws its first frame without any of this (the frame needs only
`config_sources.peek`), then runs `prepare` in a thread while the composer already takes
keys: importing pydantic, httpx and the agent's modules is most of what a launch costs.
`prepare` only builds objects and raises `BootError` with the one line to print; it
touches no widget, so it is safe off the UI thread.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

import msgspec

from rivulet.core.config_sources import DEFAULT_BASE_URL
from rivulet.core.errors import ConfigError, RivuletError, redact
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from collections.abc import Callable

    from rivulet.app.demo_server import DemoServer
    from rivulet.core.config import Settings
    from rivulet.core.engine import Notices
    from rivulet.core.store.lazy_session import LazySessionWriter
    from rivulet.core.store.prompt_history import PromptHistory
    from rivulet.core.store.session import Session, SessionWriter
    from rivulet.core.tools.router import ToolSettings
    from rivulet.core.turn.attachments import Attachment
    from rivulet.core.turn.conversation import Transport

    # The chat's session writer: the resumed file's, or a new file's, made at the first message.
    ChatWriter = SessionWriter | LazySessionWriter


def fail(message: str, code: int = 1) -> int:
    """A run that cannot go on: its one line on stderr (sanitised, secrets redacted), and its exit status."""
    print(f"rivulet: error: {sanitize(redact(message))}", file=sys.stderr)
    return code


def all_overrides(args: argparse.Namespace) -> list[str]:
    """The `-c` items given before the command and after it, in order."""
    return [*(args.overrides or []), *(args.overrides_after or [])]


class BootError(Exception):
    """The run cannot start: `message` is the one line to print, `code` the exit status."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message, self.code = message, code


class Ready(msgspec.Struct, dict=True):
    """What the chat app adopts once `prepare` has run."""

    settings: Settings
    transport: Transport
    tool_settings: ToolSettings
    demo: DemoServer | None = None
    session: Session | None = None
    writer: ChatWriter | None = None
    prompts: PromptHistory | None = None
    images: list[Attachment] = msgspec.field(default_factory=list)
    cancelled: bool = False  # the resume picker was closed: nothing to run
    notices: Notices | None = None  # where the transport's fallback notice goes (the engine binds it)
    args: argparse.Namespace | None = None  # the command line, for /profile's reload
    turn: int | None = None  # a resume's turn to show (the picker's search hit), not the end

    def stop(self) -> None:
        if self.demo is not None:
            self.demo.stop()


def settings_for(args: argparse.Namespace, *, headless: bool = False, say: Callable[[str], None] | None = None,
                 server_model: bool = True) -> tuple[Settings, DemoServer | None]:
    """Settings, and the embedded demo server with --demo (or, in the chat, when there
    is neither a key nor a URL: the chat's banner says it is the demo; a headless run
    would print scripted answers as if they were real, so it asks for --demo instead).
    A local server with no model set has its own model (core/server_model.py); `say`
    gets the one note when it lists several. `server_model=False`: not asked here (the
    chat asks after its first frame: app/tui_server_model.py)."""
    from rivulet.core.config import load_settings

    settings = load_settings(base_url=args.base_url, model=args.model,
                             approval=args.approval, workspace=args.workspace,
                             patch_tool=args.patch_tool, transport=args.transport,
                             strict_protocol=args.strict, profile=args.profile,
                             overrides=all_overrides(args), background=args.background)
    flag = args.instructions
    if flag:  # adds to the configured instructions (which come after AGENTS.md)
        joined = f"{settings.instructions}\n\n{flag}" if settings.instructions else flag
        settings = settings.model_copy(update={"instructions": joined})
    from rivulet.core.tools.environ_scrub import SECRET_ENV, scrub_own_environ

    # Commands the model writes must not find the key in /proc/<our pid>/environ.
    scrub_own_environ([v for k, v in os.environ.items() if k in SECRET_ENV] +
                      ([settings.api_key.get_secret_value()] if settings.api_key is not None else []))
    no_server = settings.api_key is None and settings.base_url == DEFAULT_BASE_URL
    if args.demo or (no_server and not headless):
        from rivulet.app import DEMO_MODEL
        from rivulet.app.demo_server import DemoServer

        demo = DemoServer().start()
        return settings.model_copy(update={"base_url": demo.base_url, "model": DEMO_MODEL}), demo
    if no_server:
        raise ConfigError("OPENAI_API_KEY is not set: set it, pass --base-url for a local server, "
                          "or add --demo to try the built-in demo")
    if settings.api_key is None and settings.auth != "none" and not settings.endpoint.is_loopback:
        raise ConfigError(f"{settings.key_variable()} is not set (a key is needed for any server but a local one)")
    from rivulet.app.capability_probe import apply_cached

    apply_cached(settings)  # what the probes found about this server, beneath what the user set
    if server_model:
        from rivulet.core.server_model import learn_server_model

        note = learn_server_model(settings)
        if note is not None and say is not None:
            say(note)
    return settings, None


def cli_images(args: argparse.Namespace, settings: Settings) -> list[Attachment]:
    """`--image PATH`s as attachments (read now: a bad one is one line before anything starts)."""
    if not args.image:
        return []
    from pathlib import Path

    from rivulet.app.attach.refs import AttachLimits, attach_image

    workspace = Path(settings.workspace or os.getcwd()).expanduser()
    limits = AttachLimits(settings.attach_max_bytes, settings.image_max_bytes)
    # A relative path is the shell's (where the user typed it), not the workspace's.
    return [attach_image(str(Path(path).expanduser().absolute()), workspace, limits)
            for path in args.image or []]


def session_for(args: argparse.Namespace,
                settings: Settings) -> tuple[Session | None, ChatWriter | None, bool, int | None]:
    """(the resumed session or None, the writer, cancelled, the turn to show: the picker's
    search hit's, else None: the end) for the chat; a new file unless resuming."""
    from rivulet.core.assembly import NewSession, ResumeSession, open_session
    from rivulet.core.config_sources import sessions_dir as store_dir
    from rivulet.core.store.session import SessionError, find_session, list_sessions

    if args.command == "resume":
        turn: int | None = None
        if args.id:
            path = find_session(args.id)
        else:
            here = os.getcwd()
            every = list_sessions()
            # This directory's sessions first; --last only looks here, and skips empty ones.
            sessions = [s for s in every if s.meta.cwd == here] + [s for s in every if s.meta.cwd != here]
            if not sessions:
                raise SessionError(f"no saved sessions in {store_dir()}")
            if args.last:
                last = last_session_here(every, here)
                if last is None or last.meta.path is None:  # a listed session always has its file
                    from rivulet.core.command_name import command_name

                    raise SessionError(f"no session with a message was started in {here} "
                                       f"({command_name()} sessions --all lists every one)")
                path = last.meta.path
            else:
                from rivulet.app.picker import SessionPicker

                chosen = SessionPicker(sessions, settings.theme).run()
                if chosen is None:
                    return None, None, True, None
                path, turn = chosen
        session, writer = open_session(settings, ResumeSession(path))  # locked elsewhere: a fork
        return session, writer, False, turn
    return (*open_session(settings, NewSession() if settings.save_sessions else None), False, None)


def session_model(session: Session, default: str) -> str:
    """The model a resumed session was last using (its last switch, else its first line):
    `resume` goes on with it unless --model says otherwise."""
    return session.model or default


def last_session_here(sessions: list[Session], here: str) -> Session | None:
    """`resume --last` (and any "go on where I was"): of the sessions started in this
    directory that have content, the one used last (its newest record), not the one
    started last; a conversation (the chat's, plain's) before a script's `exec` or an
    editor's (issue 42.7: an exec run in the workspace since is not where the user was)."""
    mine = [s for s in sessions if s.meta.cwd == here and len(s.history)]
    talks = [s for s in mine if s.meta.frontend in ("chat", "plain")]
    return max(talks or mine, key=lambda s: s.last_active, default=None)


def prepare(args: argparse.Namespace) -> Ready:
    """The chat's settings, servers, session and transport; BootError says why not."""
    from rivulet.core.engine import Notices
    from rivulet.core.store.session import SessionError

    notices = Notices()  # a recovered restore is a notice in the chat once it runs (held until then)
    try:
        settings, demo = settings_for(args, say=notices, server_model=False)  # asked after the first frame
    except ConfigError as exc:
        raise BootError(exc.message, 2) from None
    try:
        from rivulet.core.assembly import prepare as assemble
        from rivulet.core.engine import build_transport
        from rivulet.core.store.prompt_history import PromptHistory, history_file

        # The tools, the workspace recovered first, the tables read: a bad one is one line before a turn runs.
        tools = assemble(settings, notices).tool_settings
        assert tools is not None
        images = cli_images(args, settings)
        session, writer, cancelled, turn = session_for(args, settings)
        if session is not None and demo is None and not args.model:
            settings = settings.model_copy(update={"model": session_model(session, settings.model)})
        prompts = PromptHistory(history_file(tools.workspace)) if settings.save_sessions else None
        ready = Ready(settings, build_transport(settings, notices), tools, demo, session, writer, prompts, images,
                      cancelled, notices, args, turn)
    except ConfigError as exc:
        if demo is not None:
            demo.stop()
        raise BootError(exc.message, 2) from None
    except (SessionError, OSError, RivuletError) as exc:
        if demo is not None:
            demo.stop()
        raise BootError(getattr(exc, "message", str(exc))) from None
    return ready
