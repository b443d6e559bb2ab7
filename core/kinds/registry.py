"""Which kind an item is: the one table every front end asks (see kind.py).

A new item type: a module with an `ItemKind` subclass, and one line in `KINDS`."""

from __future__ import annotations

from rivulet.core import items as it

from .calls import ToolCall, ToolOutput
from .hosted import HostedTool
from .kind import Item, ItemKind
from .messages import Answer, UserMessage
from .other import ServerCompaction, Unknown
from .reasoning import Reasoning

# In the order they are asked: the first that claims an item takes it.
KINDS: list[ItemKind] = [UserMessage(), Answer(), Reasoning(), ToolCall(), ToolOutput(), HostedTool(),
                         ServerCompaction()]
UNKNOWN = Unknown()

_by_type: dict[str, list[ItemKind]] = {}


def register(kind: ItemKind) -> None:
    """Add a kind after the built-in ones (a later registration never takes a type
    an earlier one claims)."""
    KINDS.append(kind)
    _by_type.clear()


def unregister(kind: ItemKind) -> None:
    KINDS.remove(kind)
    _by_type.clear()


def kind_of(item: Item) -> ItemKind:
    """The kind that takes `item`, or `UNKNOWN`. Looked up by type, then asked."""
    if not _by_type:
        for kind in KINDS:
            for name in kind.types:
                _by_type.setdefault(name, []).append(kind)
    for kind in _by_type.get(it.item_type(item), ()):
        if kind.claims(item):
            return kind
    return UNKNOWN


def commit_problem(item: Item) -> str | None:
    """Why a finished item cannot be committed: a field the turn needs has the wrong
    type (items.invalid_reason), or what its kind refuses."""
    return it.invalid_reason(item) or kind_of(item).problem(item)
