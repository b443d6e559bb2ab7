"""The protocol notes a server has already been shown with (issue 42.7).

llama-server's streams break the same two rules in almost every answer (no
`output_index`; the next item added while one is open): the chat said so in two dim
lines in most conversations. Those notes about the stream's shape are shown once per
server (its base URL's safe form), remembered in `protocol_notes.json` beside the
sessions folder; afterwards they stay in /status and the inspector only. Notes about
content (an item that is not the model's, a malformed item) are shown every time.

The file is data: read as untrusted (bounded, unknown shapes ignored), written whole
and atomically, at most MAX_SERVERS servers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from rivulet.core.config_sources import sessions_dir
from rivulet.core.server_endpoint import safe_url
from rivulet.core.store.write_file import write_private

MAX_SERVERS = 64
MAX_BYTES = 64 * 1024
# The stream's shape: said once per server. Anything else (foreign_item, malformed_item: what
# the model's output holds) is said in every conversation.
SHAPE_RULES = frozenset({
    "no_output_index", "overlapping_items", "output_index_mismatch", "delta_after_live_ended",
    "interleaved_items", "done_without_added", "committed_from_completed", "open_item_not_in_output",
})


def notes_path() -> Path:
    return sessions_dir().parent / "protocol_notes.json"


def _load(path: Path) -> dict[str, list[str]]:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = data.get("servers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return {}
    return {url[:500]: [r for r in rules if r in SHAPE_RULES]
            for url, rules in servers.items() if isinstance(url, str) and isinstance(rules, list)}


class SeenNotes:
    """One server's notes already shown; `first_time` says whether to show one now."""

    def __init__(self, base_url: str, path: Path | None = None) -> None:
        self.url = safe_url(base_url)
        self.path = path or notes_path()
        self.known: set[str] = set(_load(self.path).get(self.url, []))

    def first_time(self, rule: str) -> bool:
        """True when this note is to be shown (and, for a shape rule, remembered as shown)."""
        if rule not in SHAPE_RULES:
            return True
        if rule in self.known:
            return False
        self.known.add(rule)
        self._save()
        return True

    def _save(self) -> None:
        servers = _load(self.path)
        servers.pop(self.url, None)
        servers[self.url] = sorted(self.known)
        kept = dict(list(servers.items())[-MAX_SERVERS:])  # the newest last: the oldest go first
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_private(self.path, json.dumps({"servers": kept}, ensure_ascii=True, indent=1))
        except OSError:
            pass  # not remembered: the note shows again next time, nothing worse
