"""A made-up item type, `diagram_call`, added the way a new one is: this one module (an
`ItemKind`) and its registration. Nothing else in rivulet names it, so whatever shows,
finds, copies or exports it does so through the registry."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from rivulet.core.hosted_items import HostedView
from rivulet.core.kinds import ItemKind, register, unregister


class DiagramCall(ItemKind):
    name: ClassVar[str] = "diagram"
    types: ClassVar[frozenset[str]] = frozenset({"diagram_call"})

    def problem(self, item: dict[str, Any]) -> str | None:
        return None if isinstance(item.get("nodes", []), list) else "diagram_call 'nodes' must be a list"

    def icon(self, item: dict[str, Any]) -> str:
        return "◇"

    def view(self, item: dict[str, Any]) -> HostedView:
        nodes = [str(n) for n in item.get("nodes") or []]
        return HostedView(title=f"diagram: {item.get('title', '?')}", lines=[" → ".join(nodes)] if nodes else [])

    def copy_text(self, item: dict[str, Any], output: dict[str, Any] | None) -> str:
        return "\n".join(str(n) for n in item.get("nodes") or [])


@contextmanager
def diagram_kind() -> Iterator[DiagramCall]:
    kind = DiagramCall()
    register(kind)
    try:
        yield kind
    finally:
        unregister(kind)
