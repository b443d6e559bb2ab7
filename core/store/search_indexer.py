"""The chat's side of the search index (issue 40): after each turn, what the session
files committed is indexed on a thread of its own, never on the event loop and never
waited for. Asked again while it works, it goes round once more when it is done (the asks
in between are one). A failure is logged, not shown: `rivulet sessions search` catches up
with the files itself, so an update missed here costs that search a little time, no more."""

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
        self._wanted: Path | None = None  # the sessions directory to catch up with, once more
        self._thread: threading.Thread | None = None

    def committed(self, session_file: Path) -> None:
        """`session_file` gained records: index its directory's new lines, in the background."""
        with self._lock:
            self._wanted = session_file.parent
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="rivulet-search-index", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                directory, self._wanted = self._wanted, None
                if directory is None:
                    self._thread = None
                    return
            try:
                with SearchIndex(directory) as index:
                    index.update()
            except (OSError, sqlite3.Error) as exc:
                log.info("the search index of %s was not updated: %s", directory, exc)
