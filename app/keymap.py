"""The config's [keymap] table (binding id -> keys), applied with Textual's keymaps.
An unknown id is named, with the nearest real one, rather than ignored; a key that another
binding already has is named too (one line), and the user's binding wins it."""

from __future__ import annotations

import difflib
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode

from rivulet.core.sanitize import sanitize
from rivulet.widgets.compat.textual import merged_bindings


def _binding_classes(app_cls: type[DOMNode]) -> list[type[DOMNode]]:
    """The App's class (the chat's: its bindings), then the widgets' and screens' with bindings."""
    from rivulet.widgets.choice import ChoiceScreen
    from rivulet.widgets.composer import Composer
    from rivulet.widgets.dialogs import ApprovalScreen, DiffScreen
    from rivulet.widgets.inspector import InspectorScreen, RawItemScreen
    from rivulet.widgets.line_select import LineSelect
    from rivulet.widgets.mcp_panel import McpScreen
    from rivulet.widgets.queue_view import QueueView
    from rivulet.widgets.search import SearchBar

    return [app_cls, Composer, SearchBar, ApprovalScreen, DiffScreen, InspectorScreen, RawItemScreen,
            ChoiceScreen, McpScreen, QueueView, LineSelect]


def known_binding_ids(app_cls: type[DOMNode]) -> set[str]:
    """Every binding id a [keymap] table may name."""
    return {b.id for cls in _binding_classes(app_cls) for b in cls.BINDINGS if isinstance(b, Binding) and b.id}


def _keys_of(cls: type[DOMNode]) -> dict[str, list[Binding]]:
    """Key -> bindings of a class, inherited ones included (the composer's are TextArea's too)."""
    merged = merged_bindings(cls)
    return dict(merged.key_to_bindings) if merged is not None else {}


def _owner(binding_id: str, classes: list[type[DOMNode]]) -> type[DOMNode] | None:
    return next((cls for cls in classes if any(getattr(b, "id", None) == binding_id for b in cls.BINDINGS)), None)


def keymap_clashes(keymap: dict[str, str], app_cls: type[DOMNode]) -> list[tuple[str, str, str]]:
    """(key, binding id, what it replaces) for each key of the keymap that another binding
    has where both apply: the app's and the composer's keys at once (the chat), or a
    dialog's own with the app's. A binding the keymap moves elsewhere is no clash."""
    classes = _binding_classes(app_cls)
    composer_cls = classes[1]
    clashes = []
    for binding_id, keys in keymap.items():
        owner = _owner(binding_id, classes)
        if owner is None:
            continue
        together = [app_cls, composer_cls] if owner in (app_cls, composer_cls) else [owner, app_cls]
        for key in (k.strip() for k in keys.split(",")):
            for cls in together:
                for other in _keys_of(cls).get(key, []):
                    if other.id == binding_id or (other.id in keymap and key not in keymap[other.id].split(",")):
                        continue
                    what = other.id or f"the {'composer' if cls is composer_cls else cls.__name__}'s {other.action}"
                    clashes.append((key, binding_id, what))
    return clashes


def _composer_yields(app: App[Any], keymap: dict[str, str]) -> None:
    """A binding moved to a key the composer has (ctrl+y: TextArea's redo) never ran while
    the composer had the focus: the focused widget's keys come first. The composer lets the
    keymap's keys go, so they reach the binding the user gave them to."""
    from rivulet.widgets.composer import Composer

    own = {b.id for b in Composer.BINDINGS if isinstance(b, Binding) and b.id}
    keys = {k.strip() for binding_id, value in keymap.items() if binding_id not in own for k in value.split(",")}
    for composer in app.query(Composer):
        composer.yield_keys(keys)


def apply_keymap(app: App[Any], keymap: dict[str, str]) -> None:
    if not keymap:
        return
    known = known_binding_ids(type(app))
    for binding_id in keymap:
        if binding_id not in known:
            near = difflib.get_close_matches(binding_id, sorted(known), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            app.notify(sanitize(f"[keymap] in the config: no binding {binding_id}{hint}"),
                       severity="warning", timeout=10, markup=False)
    valid = {k: v for k, v in keymap.items() if k in known}
    clashes = keymap_clashes(valid, type(app))
    if clashes:
        said = "; ".join(f"{key} for {binding_id} replaces {what}" for key, binding_id, what in clashes)
        app.notify(sanitize(f"[keymap] {said}"), severity="warning", timeout=10, markup=False)
    _composer_yields(app, valid)
    app.set_keymap(valid)
