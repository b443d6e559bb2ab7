"""The chat's side of the search index (issue 40): after each turn, the new lines of the
session file it writes are indexed on a thread of its own, never on the event loop and
never waited for. Only that file: catching up with every other session (a first index of
2,000 long ones takes a minute) is the search's own work, so a chat never spends minutes
of CPU on it. Asked again while it works, it goes round once more when it is done (the
asks in between are one). A failure is logged, not shown: the search catches up with the
files itself, so an update missed here costs that search a little time, no more."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from rivulet.core.store.search_index import SearchIndex

log = logging.getLogger(__name__)


class BackgroundIndexer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wanted: set[Path] = set()  # session files to index the new lines of
        self._thread: threading.Thread | None = None

    def committed(self, session_file: Path) -> None:
        """`session_file` gained records: index its new lines, in the background."""
        with self._lock:
            self._wanted.add(session_file)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rivulet-search-index", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                wanted, self._wanted = self._wanted, set()
                if not wanted:
                    self._thread = None
                    return
            for path in wanted:
                try:
                    with SearchIndex(path.parent) as index:
                        index.update_file(path)
                except (OSError, sqlite3.Error) as exc:
                    log.info("the search index of %s was not updated: %s", path, exc)
