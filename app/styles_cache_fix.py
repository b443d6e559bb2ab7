"""Removed widgets' drawn lines are freed with them (a fix over Textual's StylesCache).

Textual (8.x) caches `StylesCache.get_inner_outer` with `functools.lru_cache` on the
method, so the cache's keys hold each widget's StylesCache itself: the 1,024 most
recent ones stay alive after their widgets are gone, each with every line it drew
(`Strip`s, ~1 kB each with their own caches). A chat mounts and removes ~90 Markdown
widgets per answer, so that cache held ~20,000 lines of removed answers by turn ~40
of issue 22's soak: most of its RSS growth after turn 20, and a bigger heap for every
full collection. The colours it computes depend only on the two colours, so they are
cached on those alone, and no StylesCache is kept.

The right home of the fix is Textual; the report, as it would be filed upstream:

    StylesCache.get_inner_outer's lru_cache keeps removed widgets' StylesCache alive

    What: `src/textual/_styles_cache.py` decorates the method `get_inner_outer(cls,
    base_background, background)` with `@lru_cache(1024)`. It is a plain method, not a
    classmethod, so its first argument is the StylesCache instance and the cache's keys
    hold the 1,024 most recently used instances, each with its cached lines (`Strip`s).
    A widget removed from the DOM is thus kept alive, with everything it drew, until
    1,024 other StylesCaches have been used since.

    Reproduction (Textual 8.2): mount and remove ~2,000 `Static` widgets with a
    background; `gc.collect()`; the number of live `StylesCache` objects
    (`sum(isinstance(o, StylesCache) for o in gc.get_objects())`) stays at ~1,024 instead
    of the mounted widgets' count. In a chat app mounting ~90 Markdown widgets per answer,
    this held ~20,000 lines of removed widgets after ~40 answers.

    Proposed fix: the result depends only on the two colours, so make it a function of
    those (a module-level `@lru_cache` function, or `@staticmethod` under the cache), e.g.
    `_inner_outer(base_background, background)`, called by the method. No behaviour
    changes; the cache then holds `Color`s only.

The canary (tests/widgets/test_compat_textual.py) fails once Textual drops that cache,
and this module can go.
"""

from __future__ import annotations

from functools import lru_cache

from textual.color import Color
from textual.style import Style

from rivulet.widgets.compat.textual import StylesCache, replace_styles_cache_method


@lru_cache(1024)
def inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """What Textual's `get_inner_outer` returns, keyed by the colours only."""
    return Style(background=base_background + background), Style(background=base_background)


def _get_inner_outer(self: StylesCache, base_background: Color, background: Color) -> tuple[Style, Style]:
    return inner_outer(base_background, background)


def install() -> None:
    """Swap the method for one that keeps no StylesCache (idempotent)."""
    replace_styles_cache_method("get_inner_outer", _get_inner_outer)
