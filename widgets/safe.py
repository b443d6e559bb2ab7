"""The one way untrusted text reaches the screen: sanitised, as a `rich.text.Text`.

A plain `str` handed to a Textual widget, a toast or a title is parsed as markup, so
`[@click=app.screenshot(...)]` in a model's text would become a live action and `[/b]`
would crash the app. Model, tool, server, file-name and session text goes through
`safe_text` (or `SafeNotify` for toasts) and is never parsed.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text

from rivulet.core.errors import redact
from rivulet.core.sanitize import sanitize
from rivulet.widgets.compat import textual as compat

if TYPE_CHECKING:
    from textual.app import App


def safe_text(text: Any, style: str = "") -> Text:
    """Untrusted text as a Text: controls made visible, never markup."""
    return Text(sanitize(str(text)), style=style)


REPEAT = 0.5  # seconds: the same toast again sooner than this is the same event, twice


class SafeNotify:
    """Mixin for an App: every toast is plain text, sanitised and redacted."""

    def notify(self, message: Any, *, title: Any = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        text, heading = sanitize(redact(str(message))), sanitize(redact(str(title)))
        # The same toast twice is shown once (a setting read twice at start): a repeat made
        # at once is dropped (Textual adds a toast only when its message is handled), a
        # later one replaces the one still up, so it stays its full time.
        sent: dict[tuple[str, str, str], float] = self.__dict__.setdefault("_toasts_sent", {})
        now, key = time.monotonic(), (text, heading, str(severity))
        if now - sent.get(key, -REPEAT) < REPEAT:
            return
        sent[key] = now
        app = cast("App[Any]", self)  # (a mixin of the App)
        for up in compat.notifications(app):
            if (up.message, up.title, str(up.severity)) == key:
                compat.unnotify(app, up)
        super().notify(text, title=heading,  # type: ignore[misc]
                       severity=severity, timeout=timeout, markup=False)
