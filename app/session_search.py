"""`rivulet sessions search QUERY`: the sessions that said it (issue 40), one line each,
newest first: when, which, where (with --all) and a snippet with the match marked; or,
with --json, one object a line. The index (core/store/search_index.py) catches up with
the session files first: only their new lines are read. Exit 0 with hits, 1 with none,
2 on a query FTS5 cannot read (or an index that cannot be opened)."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import time

from rivulet.app.boot import fail
from rivulet.core.config_sources import sessions_dir
from rivulet.core.sanitize import sanitize
from rivulet.core.store.search_index import BadQuery, Hit, check_query, index_path, open_index

PLAIN_MARKS = ("«", "»")  # the match, where the terminal's own marks cannot be used (a pipe, --json)
TTY_MARKS = ("\x1b[1;4m", "\x1b[22;24m")  # bold and underlined


def run_search(args: argparse.Namespace) -> int:
    here = os.getcwd()
    try:
        check_query(args.query)  # before the index is touched: a typo costs nothing
        folder = sessions_dir()
        if not index_path(folder).exists() and sys.stderr.isatty():  # (a minute for 2,000 long sessions)
            print("rivulet: indexing the saved sessions (the first search only)…", file=sys.stderr, flush=True)
        with open_index(folder) as index:
            index.update()
            hits = index.search(args.query, cwd=None if args.all else here, limit=args.limit)
    except BadQuery as exc:
        return fail(exc.message, 2)
    except (OSError, sqlite3.Error) as exc:
        return fail(f"the search index could not be read: {exc}", 2)
    if not hits:
        if not args.json:
            where = "" if args.all else f" started in {here} (--all: every directory)"
            print(sanitize(f"rivulet: no session{where} matches {args.query}"), file=sys.stderr)
        return 1
    for hit in hits:
        print(hit_json(hit) if args.json else hit_line(hit, with_cwd=args.all))
    return 0


def marked(hit: Hit, marks: tuple[str, str]) -> str:
    """The snippet on one line, sanitised, the match between `marks`."""
    return "".join(f"{marks[0]}{text}{marks[1]}" if match else text for text, match in hit.snippet_parts())


def hit_line(hit: Hit, *, with_cwd: bool) -> str:
    tty = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.last))
    where = f"  {sanitize(hit.cwd)}" if with_cwd else ""
    return f"{when}  {sanitize(hit.session)}{where}  {marked(hit, TTY_MARKS if tty else PLAIN_MARKS)}"


def hit_json(hit: Hit) -> str:
    """ASCII only (every other character escaped): a terminal shows it as it is."""
    return json.dumps({"session": hit.session, "path": hit.path, "workspace": hit.cwd, "created": hit.created,
                       "last": hit.last, "turn": hit.turn, "kind": hit.kind, "time": hit.time, "hits": hit.hits,
                       "snippet": marked(hit, PLAIN_MARKS)}, ensure_ascii=True)
