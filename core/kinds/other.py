"""Items with nothing of their own to show: the server's compaction item, and any type
rivulet does not know (kept and resent as sent, shown by type and status)."""

from __future__ import annotations

import json
from typing import ClassVar

from .kind import Item, ItemKind


class ServerCompaction(ItemKind):
    name: ClassVar[str] = "compaction"
    types: ClassVar[frozenset[str]] = frozenset({"compaction"})

    def markdown(self, item: Item, output: Item | None) -> str:
        return "\n*(the earlier conversation was compacted by the server)*\n"


class Unknown(ItemKind):
    """Claims nothing: what `kind_of` gives for a type no kind claims."""

    name: ClassVar[str] = "other"

    def search_text(self, item: Item, output: Item | None) -> str:
        # The fields a call would have: an unknown type that carries them is still found.
        parts = [item.get(k, "") for k in ("name", "arguments", "input", "action")]
        return "\n".join(p if isinstance(p, str) else json.dumps(p, default=str) for p in parts if p)
