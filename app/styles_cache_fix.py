"""Removed widgets' drawn lines are freed with them (a fix over Textual's StylesCache).

Textual (8.x) caches `StylesCache.get_inner_outer` with `functools.lru_cache` on the
method, so the cache's keys hold each widget's StylesCache itself: the 1,024 most
recent ones stay alive after their widgets are gone, each with every line it drew
(`Strip`s, ~1 kB each with their own caches). A chat mounts and removes ~90 Markdown
widgets per answer, so that cache held ~20,000 lines of removed answers by turn ~40
of issue 22's soak: most of its RSS growth after turn 20, and a bigger heap for every
full collection. The colours it computes depend only on the two colours, so they are
cached on those alone, and no StylesCache is kept.
"""

from __future__ import annotations

from functools import lru_cache

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style


@lru_cache(1024)
def inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """What Textual's `get_inner_outer` returns, keyed by the colours only."""
    return Style(background=base_background + background), Style(background=base_background)


def _get_inner_outer(self: StylesCache, base_background: Color, background: Color) -> tuple[Style, Style]:
    return inner_outer(base_background, background)


def install() -> None:
    """Swap the method for one that keeps no StylesCache (idempotent)."""
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign,assignment]
