"""The config's [keymap] table (binding id -> keys), applied with Textual's keymaps.
An unknown id is named, with the nearest real one, rather than ignored."""

from __future__ import annotations

import difflib
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

from rivulet.core.sanitize import sanitize


def known_binding_ids() -> set[str]:
    """Every binding id a [keymap] table may name."""
    from rivulet.app.tui import RivuletApp
    from rivulet.widgets.choice import ChoiceScreen
    from rivulet.widgets.composer import Composer
    from rivulet.widgets.dialogs import ApprovalScreen, DiffScreen
    from rivulet.widgets.inspector import InspectorScreen, RawItemScreen
    from rivulet.widgets.mcp_panel import McpScreen
    from rivulet.widgets.queue_view import QueueView
    from rivulet.widgets.search import SearchBar

    classes: list[type[DOMNode]] = [RivuletApp, Composer, SearchBar, ApprovalScreen, DiffScreen, InspectorScreen,
                                    RawItemScreen, ChoiceScreen, McpScreen, QueueView]
    return {b.id for cls in classes for b in cls.BINDINGS if isinstance(b, Binding) and b.id}


def apply_keymap(app: App[Any], keymap: dict[str, str]) -> None:
    if not keymap:
        return
    known = known_binding_ids()
    for binding_id in keymap:
        if binding_id not in known:
            near = difflib.get_close_matches(binding_id, sorted(known), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            app.notify(sanitize(f"[keymap] in the config: no binding {binding_id}{hint}"),
                       severity="warning", timeout=10, markup=False)
    app.set_keymap({k: v for k, v in keymap.items() if k in known})
