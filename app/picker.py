"""`rivulet resume` without an id: pick a session from a list, or type in its search field
(the full-text index, issue 40) and pick a hit: the chat then opens at the hit's turn."""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple

from textual.app import App

from rivulet.app.paste_guard import install as install_paste_guard
from rivulet.core.sanitize import sanitize
from rivulet.core.store.session import Session
from rivulet.themes import STYLESHEET, THEMES
from rivulet.widgets.choice import Choice, ChoiceScreen
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


class Picked(NamedTuple):
    """What the picker opens: a session, at its end, or at a search hit's turn."""

    path: Path
    turn: int | None = None


class PickerScreen(ChoiceScreen):
    """The sessions and their search field (the chat's /resume picker's own, issue 40), the
    whole terminal (its CSS below)."""


class SessionPicker(SafeNotify, App[Picked | None]):
    CSS_PATH = str(STYLESHEET)
    CSS = """
    /* Before the chat: the picker is the terminal's, not a dialog over a screen. */
    PickerScreen { align: left top; }
    PickerScreen #choice { width: 100%; max-width: 100%; height: 100%; max-height: 100%; border: none; padding: 0 1; }
    PickerScreen #choice-list { height: 1fr; max-height: 100%; }
    """
    TITLE = "rivulet · resume"

    def __init__(self, sessions: list[Session], theme: str = "rivulet-dark") -> None:
        super().__init__()
        install_paste_guard()
        self.sessions = sessions
        self._theme_name = theme
        self.picks: dict[str, Picked] = {}  # a row's value -> what it opens (a session is a row and a hit)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        if self._theme_name in self.available_themes:
            self.theme = self._theme_name
        rows = [self._row(Picked(s.meta.path), *session_choice(s)) for s in self.sessions if s.meta.path is not None]
        self.push_screen(PickerScreen("Resume which session?", rows, search=self._search,
                                      note="this directory's first; type to search every session's text"),
                         self._picked)

    def _row(self, pick: Picked, label: str, more: str) -> Choice:
        key = str(len(self.picks))
        self.picks[key] = pick
        return Choice(key, label, more)

    async def _search(self, query: str) -> list[Choice] | str:
        """The sessions that say it (/search's hits), each its snippet; Enter opens it at that turn."""
        from rivulet.app.commands.search import find_hits, hit_choice

        hits = await find_hits(None, query)
        if not isinstance(hits, list):
            return hits.text  # no hit, a query FTS5 cannot read, an index that cannot be read
        return [self._row(Picked(Path(hit.path), hit.turn), *hit_choice(hit)) for hit in hits]

    def _picked(self, value: str | None) -> None:
        self.exit(self.picks.get(value) if value is not None else None)
