"""`rivulet resume --plain`: the same session files as the chat. An id or --last picks
one; without either, the sessions started here are listed, numbered, and one is asked
for (no full-screen picker)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from rivulet.core import items as it

if TYPE_CHECKING:
    from rivulet.app.boot import ChatWriter
    from rivulet.app.plain.printer import PlainPrinter
    from rivulet.core.config import Settings
    from rivulet.core.store.session import Session

LISTED = 20


def resumed_session(args: argparse.Namespace, settings: Settings) -> tuple[Session | None, ChatWriter | None]:
    """(the resumed session or None, the writer). Raises BootError/SessionError with one line."""
    from rivulet.app.boot import BootError, session_for, session_model
    from rivulet.core.store.session import SessionError

    if args.command == "resume" and not args.id and not args.last:
        args.id = _ask_which()
        if args.id is None:
            raise BootError("no session chosen", 0)
    try:
        session, writer, _, _ = session_for(args, settings)
    except SessionError as exc:
        raise BootError(exc.message) from None
    if session is not None and not args.model:
        settings.model = session_model(session, settings.model)
    return session, writer


def _ask_which() -> str | None:
    from rivulet.app.picker import SESSION_HEADER, session_line
    from rivulet.core.store.session import list_sessions

    here = os.getcwd()
    every = list_sessions()
    sessions = ([s for s in every if s.meta.cwd == here] + [s for s in every if s.meta.cwd != here])[:LISTED]
    if not sessions:
        return None
    print("   " + SESSION_HEADER)
    for n, session in enumerate(sessions, 1):
        print(f"{n:>2} {session_line(session)}")
    try:
        answer = input("resume which (number, Enter: none)? ").strip()
    except EOFError:
        return None
    if answer.isdigit() and 1 <= int(answer) <= len(sessions):
        return str(sessions[int(answer) - 1].meta.path)
    return None


def print_resumed(printer: PlainPrinter, session: Session, shown: int) -> None:
    """The newest messages of the session, so the reader knows where it stands."""
    messages = [i for i in session.history.items if it.item_type(i) == "message"
                and i.get("role") in ("user", "assistant")]
    if len(messages) > shown:
        from rivulet.core.command_name import command_name

        printer.line(f"… {len(messages) - shown} earlier messages ({command_name()} export {session.meta.id} "
                     "prints them all)", "dim")
    for item in messages[-shown:]:
        text = it.message_text(item) or ""
        if item.get("role") == "user":
            printer.line(f"you> {text}")
        else:
            printer.markdown(text)
    printer.line(f"resumed session {session.meta.id}", "dim")
