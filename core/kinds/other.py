"""Items with nothing of their own to show: the server's compaction item, and any type
rivulet does not know (kept and resent as sent, shown by type and status)."""

from __future__ import annotations

from typing import ClassVar

from .calls import call_fields_text
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
        return call_fields_text(item)  # the fields a call would have: an unknown type carrying them is found
