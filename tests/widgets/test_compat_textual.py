"""Canary for widgets/compat/textual.py: what it relies on in Textual's private API is
there, with the shape it expects. A failure here names the Textual change to adapt to."""

from __future__ import annotations

import importlib
import inspect

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static, TextArea

from rivulet.widgets.compat import textual as compat


@pytest.mark.parametrize("name", sorted(compat.OVERRIDDEN_HOOKS))
def test_each_overridden_hook_is_on_its_class_with_its_parameters(name: str) -> None:
    where, params = compat.OVERRIDDEN_HOOKS[name]
    module, _, cls_name = where.rpartition(".")
    cls = getattr(importlib.import_module(module), cls_name)
    assert callable(getattr(cls, name, None)), f"Textual's {where} has no {name} any more"
    assert tuple(inspect.signature(getattr(cls, name)).parameters) == params, f"{where}.{name} changed"


def test_the_patched_names_are_where_the_patches_expect_them() -> None:
    from textual.drivers import linux_driver

    # (Textual's, or app/paste_guard.py's subclass once a test has installed it)
    assert issubclass(linux_driver.XTermParser, compat.XTermParser)  # type: ignore[attr-defined]
    assert tuple(inspect.signature(compat.XTermParser.feed).parameters) == ("self", "data")
    # Textual's get_inner_outer: an lru_cache over the instance too (the leak
    # app/styles_cache_fix.py works around). Fixed upstream: drop that module.
    theirs = compat.textual_styles_cache_method("get_inner_outer")
    assert hasattr(theirs, "cache_info"), "Textual no longer caches get_inner_outer: drop app/styles_cache_fix.py"
    assert len(inspect.signature(theirs).parameters) == 3


async def test_the_app_and_screen_internals_read_as_expected() -> None:
    class One(App[None]):
        BINDINGS = [Binding("f9", "hit", priority=True)]
        hits = 0

        def compose(self) -> ComposeResult:
            yield Static("x", id="x")
            yield TextArea("ab", id="area")

        def action_hit(self) -> None:
            self.hits += 1

    app = One()
    assert compat.driver(app) is None and not compat.is_running(app)
    async with app.run_test() as pilot:
        widget = app.query_one("#x")
        assert compat.driver(app) is not None and compat.is_running(app)
        assert widget in compat.compositor(app.screen).visible_widgets
        assert compat.select_state(app.screen) is None
        assert not compat.is_pruning(widget)
        with compat.synchronized_update(app):
            pass
        assert await compat.check_bindings(app, "f9", priority=True)
        await pilot.pause()
        assert app.hits == 1
        assert not await compat.check_bindings(app, "f8", priority=True)
        app.set_keymap({"hit": "f7"})
        assert compat.keymap(app) == {"hit": "f7"}
        merged = compat.merged_bindings(One)
        assert merged is not None and "f9" in merged.key_to_bindings
        app.notify("one")
        await pilot.pause()
        [toast] = compat.notifications(app)
        assert toast.message == "one"
        compat.unnotify(app, toast)
        assert compat.notifications(app) == []
        area = app.query_one(TextArea)
        assert "ctrl+z" in compat.bindings(area).key_to_bindings
        assert not compat.anchor_released(area)
        area.focus()
        await pilot.pause()
        assert compat.cursor_visible(area) is True  # (set on focus)
        result = compat.replace_via_keyboard(area, "X", (0, 1), (0, 2))
        assert result is not None and area.text == "aX"
        area.undo()
        assert area.text == "ab"
