"""Issue 22's soak: Textual's `StylesCache.get_inner_outer` is an `lru_cache` on the
method, so it kept the StylesCache (and every line drawn) of the last 1,024 widgets
drawn, long after they were removed: ~20,000 lines of old answers' Markdown widgets
by turn ~40. With app/styles_cache_fix.py a removed widget's lines go with it."""

from __future__ import annotations

import gc
import weakref

import pytest
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from rivulet.app.styles_cache_fix import install
from rivulet.app.tui import RivuletApp


class _Board(App[None]):
    CSS = "Static { background: $panel; }"  # a background of its own: the colours are mixed

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="board")


async def _drawn_then_removed(rounds: int, per_round: int) -> list[weakref.ref[StylesCache]]:
    caches: list[weakref.ref[StylesCache]] = []
    app = _Board()
    async with app.run_test(size=(60, 30)) as pilot:
        board = app.query_one("#board", VerticalScroll)
        for r in range(rounds):
            widgets = [Static(f"round {r} line {n}") for n in range(per_round)]
            await board.mount_all(widgets)
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            app.screen.refresh()
            await pilot.pause()
            caches += [weakref.ref(w._styles_cache) for w in widgets]
            await board.remove_children()
            await pilot.pause()
    del app, board, widgets
    gc.collect()
    return caches


@pytest.fixture
def fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StylesCache, "get_inner_outer", StylesCache.get_inner_outer)  # put back after
    install()


@pytest.mark.usefixtures("fixed")
async def test_removed_widgets_drawn_lines_are_freed() -> None:
    caches = await _drawn_then_removed(rounds=4, per_round=25)
    alive = sum(1 for ref in caches if ref() is not None)
    assert len(caches) == 100
    # Before the fix every one of them was still alive (held by the lru_cache's keys).
    assert alive == 0, f"{alive} of {len(caches)} removed widgets' StylesCaches are still alive"


@pytest.mark.usefixtures("fixed")
def test_the_colours_are_textuals() -> None:
    from textual.color import Color

    base, background = Color(10, 20, 30), Color(200, 100, 50, 0.5)
    inner, outer = StylesCache().get_inner_outer(base, background)
    assert inner.background == base + background != base
    assert outer.background == base


def test_the_chat_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from rivulet.app import styles_cache_fix

    original = StylesCache.__dict__["get_inner_outer"]
    monkeypatch.setattr(StylesCache, "get_inner_outer", original)
    RivuletApp(None, None, remember_theme=False)
    assert StylesCache.__dict__["get_inner_outer"] is styles_cache_fix._get_inner_outer
