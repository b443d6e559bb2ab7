"""The one way untrusted text reaches the screen: sanitised, as a `rich.text.Text`.

A plain `str` handed to a Textual widget, a toast or a title is parsed as markup, so
`[@click=app.screenshot(...)]` in a model's text would become a live action and `[/b]`
would crash the app. Model, tool, server, file-name and session text goes through
`safe_text` (or `SafeNotify` for toasts) and is never parsed.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text

from rivulet.core.errors import redact
from rivulet.core.sanitize import sanitize


def safe_text(text: Any, style: str = "") -> Text:
    """Untrusted text as a Text: controls made visible, never markup."""
    return Text(sanitize(str(text)), style=style)


class SafeNotify:
    """Mixin for an App: every toast is plain text, sanitised and redacted."""

    def notify(self, message: Any, *, title: Any = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        text, heading = sanitize(redact(str(message))), sanitize(redact(str(title)))
        # The same toast twice at once says nothing more (a setting read twice at start).
        # Textual adds a toast when its message is handled, so the ones on their way count too.
        shown: dict[tuple[str, str, str], float] = self.__dict__.setdefault("_toasts_up", {})
        now, key = time.monotonic(), (text, heading, str(severity))
        for old in [k for k, until in shown.items() if until <= now]:
            del shown[old]
        if key in shown:
            return
        shown[key] = now + (timeout if timeout is not None else getattr(self, "NOTIFICATION_TIMEOUT", 5.0))
        super().notify(text, title=heading,  # type: ignore[misc]
                       severity=severity, timeout=timeout, markup=False)
