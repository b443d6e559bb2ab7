"""/search QUERY: the saved sessions that said it (issue 40), as a choice list of hits,
the newest first, each its snippet with the match marked, and when, which and where;
picking one resumes it, as /resume does. The index catches up with the session files
first (core/store/search_index.py), on a thread: the chat never waits on the disk."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from functools import partial
from pathlib import Path

from rivulet.app.commands.conversation import BUSY, ConversationNeeds, resume_path
from rivulet.app.commands.results import Choose, Option, Result, Say
from rivulet.core.store.search_index import BadQuery, Hit, check_query, open_index

LIMIT = 50


async def search_sessions(s: ConversationNeeds, arg: str = "") -> Result:
    query = arg.strip()
    if not query:
        return Say('/search QUERY: words, "a phrase", prefix*, OR, NOT', "warning")
    if s.turns.running():
        return BUSY
    return await session_hits(s, query)


async def session_hits(s: ConversationNeeds, query: str) -> Choose | Say:
    """The sessions that say `query` as a choice list (/search's; the /resume picker's search
    field's too), or why there are none in one line."""
    writer = s.engine.writer
    hits = await find_hits(writer.path.parent if writer is not None and writer.path is not None else None, query)
    if isinstance(hits, Say):
        return hits
    options = [Option(hit.path, *hit_choice(hit)) for hit in hits]
    turns = {hit.path: hit.turn for hit in hits}
    return Choose(f"Sessions that say {query}", options, partial(_resume_at, s, turns),
                  note="the newest first; enter resumes the session at the turn of the hit")


async def _resume_at(s: ConversationNeeds, turns: dict[str, int], picked: str) -> Result:
    """Resume the session picked, its hit's turn in view."""
    said = await resume_path(s, picked)
    if said is None:  # resumed (else: why not, said)
        await s.transcript.show_turn(turns[picked])
    return said


async def find_hits(folder: Path | None, query: str) -> list[Hit] | Say:
    """The hits of `query` in the sessions of `folder` (the sessions directory by default), on
    a thread, or why there are none in one line (/search's and both session pickers')."""
    try:
        check_query(query)
        hits = await asyncio.to_thread(_search, folder, query)
    except BadQuery as exc:
        return Say(exc.message, "error")
    except (OSError, sqlite3.Error) as exc:
        return Say(f"The search index could not be read: {exc}", "error")
    return hits or Say(f"No saved session says {query}")


def _search(folder: Path | None, query: str) -> list[Hit]:
    with open_index(folder) as index:
        index.update()
        return index.search(query, limit=LIMIT)


def hit_choice(hit: Hit) -> tuple[str, str]:
    """(label, help): the snippet, the match in «»; then when, which turn, which session, where
    (a row too long for the terminal is cut at the right: the workspace goes first)."""
    from rivulet.app.session_search import PLAIN_MARKS, marked

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.last))
    return marked(hit, PLAIN_MARKS), f"{when} · turn {hit.turn} · {hit.session} · {hit.cwd}"
