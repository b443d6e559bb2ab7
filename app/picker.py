"""`rivulet resume` without an id: pick a session from a list."""

from __future__ import annotations

import time
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from rivulet.app.paste_guard import install as install_paste_guard
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import Session
from rivulet.themes import STYLESHEET, THEMES
from rivulet.widgets.safe import SafeNotify

SESSION_HEADER = f"{'STARTED':16}  {'ID':22}  {'FROM':4}  {'SIZE':21}  MODEL  FIRST PROMPT"


def _count(n: int, noun: str) -> str:
    return f"{n:3d} {noun}" + ("" if n == 1 else "s")


def session_line(session: Session) -> str:
    meta = session.meta
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.created))
    prompt = " ".join(session.first_prompt.split())[:60]
    made_by = meta.frontend[:4] or "-"  # "-": a file from before the front end was recorded
    size = f"{_count(len(session.turns), 'turn'):9}  {_count(len(session.history), 'item'):10}"
    return sanitize(f"{when}  {meta.id}  {made_by:4}  {size}  {session.model}  {prompt}")


def session_choice(session: Session) -> tuple[str, str]:
    """A picker's row, as (label, help): when it started and its first prompt (what a session
    is known by) first, then its size, model, front end and id. A row too long for the
    terminal is cut at the right (issue 38.6), so what tells sessions apart comes first."""
    meta = session.meta
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(meta.created))
    prompt = " ".join(session.first_prompt.split())[:60] or "(no prompt)"
    turns = _count(len(session.turns), "turn").strip()
    return sanitize(f"{when}  {prompt}"), sanitize(f"{turns} · {session.model} · {meta.frontend or '-'} · {meta.id}")


def _session_row(session: Session) -> Text:
    label, more = session_choice(session)
    return Text.assemble(label, ("  " + more, "dim"))


class SessionPicker(SafeNotify, App[Path | None]):
    CSS_PATH = str(STYLESHEET)
    TITLE = "rivulet · resume"
    BINDINGS = [Binding("escape,q", "quit_picker", "Cancel", id="picker.cancel")]

    def __init__(self, sessions: list[Session], theme: str = "rivulet-dark") -> None:
        super().__init__()
        install_paste_guard()
        self.sessions = sessions
        self._theme_name = theme

    def compose(self) -> ComposeResult:
        yield Static(Text("Resume which session? (enter: open · esc: cancel)", style="bold"), id="banner")
        yield OptionList(*[Option(_session_row(s), id=str(n)) for n, s in enumerate(self.sessions)],
                         id="sessions")
        yield Footer()

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        if self._theme_name in self.available_themes:
            self.theme = self._theme_name
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.exit(self.sessions[int(event.option.id or 0)].meta.path)

    def action_quit_picker(self) -> None:
        self.exit(None)
