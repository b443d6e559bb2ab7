"""Textual's private API, every use of it in rivulet (tested against Textual 8.2).

Canary: tests/widgets/test_compat_textual.py. Each function names what it reaches for;
the modules that use them stay on Textual's public API otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser

if TYPE_CHECKING:
    from textual._compositor import Compositor
    from textual.app import App
    from textual.binding import BindingsMap, Keymap
    from textual.dom import DOMNode
    from textual.driver import Driver
    from textual.notifications import Notification
    from textual.screen import Screen
    from textual.selection import SelectState
    from textual.widget import Widget
    from textual.widgets import TextArea
    from textual.widgets.text_area import EditResult, Location

__all__ = [
    "OVERRIDDEN_HOOKS",
    "StylesCache",
    "XTermParser",
    "anchor_released",
    "bindings",
    "check_bindings",
    "compositor",
    "cursor_visible",
    "driver",
    "install_input_parser",
    "is_pruning",
    "is_running",
    "keymap",
    "merged_bindings",
    "notifications",
    "replace_styles_cache_method",
    "replace_via_keyboard",
    "select_state",
    "synchronized_update",
    "textual_styles_cache_method",
    "unnotify",
]

# Private methods rivulet's widgets override or call on their own base class: which
# class defines them, and the parameters they take (the canary checks both).
OVERRIDDEN_HOOKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "_restart_blink": ("textual.widgets.TextArea", ("self",)),  # widgets/composer.py
    "_toggle_cursor_blink_visible": ("textual.widgets.TextArea", ("self",)),  # widgets/composer.py
    "_pause_blink": ("textual.widgets.TextArea", ("self", "visible")),  # widgets/composer.py
    "_on_key": ("textual.widgets.TextArea", ("self", "event")),  # widgets/composer.py: keys before TextArea's
    "_on_paste": ("textual.widgets.TextArea", ("self", "event")),  # widgets/composer.py: pastes as chips
    "_size_updated": ("textual.widget.Widget", ("self", "size", "virtual_size", "container_size", "layout")),
}


def driver(app: App[Any]) -> Driver | None:
    """The terminal's writer (`App._driver`), None before the app runs or after it ends."""
    return app._driver


def is_running(app: App[Any]) -> bool:
    """Whether the app's message loop is running (`App._running`)."""
    return app._running


def compositor(screen: Screen[Any]) -> Compositor:
    """The screen's last frame's map (`Screen._compositor`): which widget is drawn where."""
    return screen._compositor


@contextmanager
def synchronized_update(app: App[Any]) -> Iterator[None]:
    """The synchronized-output bracket `App._display` writes a frame in."""
    app._begin_update()
    try:
        yield
    finally:
        app._end_update()


def is_pruning(widget: Widget) -> bool:
    """Whether `widget` is being removed (`Widget._pruning`): still a child, soon gone."""
    return widget._pruning


def keymap(app: App[Any]) -> Keymap:
    """The user's keymap as the app applied it (`App._keymap`): binding id -> keys."""
    return app._keymap


def merged_bindings(cls: type[DOMNode]) -> BindingsMap | None:
    """A widget class's bindings, inherited ones merged in (`DOMNode._merged_bindings`);
    None until Textual has merged them (at the class's first instance)."""
    return cls._merged_bindings


def notifications(app: App[Any]) -> list[Notification]:
    """The toasts up now (`App._notifications`)."""
    return list(app._notifications)


def unnotify(app: App[Any], notification: Notification) -> None:
    """Take one toast down (`App._unnotify`): Textual has no public way to."""
    app._unnotify(notification)


def bindings(node: DOMNode) -> BindingsMap:
    """A widget's own bindings map (`DOMNode._bindings`), the one its keys are looked up in."""
    return node._bindings


def anchor_released(widget: Widget) -> bool:
    """Whether the user scrolled an anchored widget away from its end (`Widget._anchor_released`)."""
    return widget._anchor_released


def cursor_visible(area: TextArea) -> bool:
    """Whether a TextArea's blinking cursor is drawn now (`TextArea._cursor_visible`)."""
    return area._cursor_visible


def replace_via_keyboard(area: TextArea, insert: str, start: Location, end: Location) -> EditResult | None:
    """Replace text as typing does (`TextArea._replace_via_keyboard`): read-only and
    max-length rules apply, and the edit is one undo step with the keys typed around it."""
    return area._replace_via_keyboard(insert, start, end)


def select_state(screen: Screen[Any]) -> SelectState | None:
    """A mouse selection's drag ends in screen space (`Screen._select_state`), if one is under way."""
    return screen._select_state


async def check_bindings(app: App[Any], key: str, priority: bool = False) -> bool:
    """Run `key`'s binding as the app would (`App._check_bindings`): True if one handled it."""
    return await app._check_bindings(key, priority=priority)


def install_input_parser(parser: type[XTermParser]) -> None:
    """Make Textual's Linux driver read input with `parser` (its module's own import of
    `XTermParser`, swapped: the driver has no public way to choose its parser)."""
    from textual.drivers import linux_driver

    linux_driver.XTermParser = parser  # type: ignore[attr-defined]


_REPLACED: dict[str, Callable[..., Any]] = {}


def replace_styles_cache_method(name: str, method: Callable[..., Any]) -> None:
    """Replace one method of Textual's `StylesCache` (app/styles_cache_fix.py's fix)."""
    _REPLACED.setdefault(name, getattr(StylesCache, name))
    setattr(StylesCache, name, method)


def textual_styles_cache_method(name: str) -> Callable[..., Any]:
    """Textual's own `StylesCache` method `name`, replaced or not (for the canary)."""
    return _REPLACED.get(name) or getattr(StylesCache, name)
