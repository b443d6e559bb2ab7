"""The one way untrusted text reaches the screen: sanitised, as a `rich.text.Text`.

A plain `str` handed to a Textual widget, a toast or a title is parsed as markup, so
`[@click=app.screenshot(...)]` in a model's text would become a live action and `[/b]`
would crash the app. Model, tool, server, file-name and session text goes through
`safe_text` (or `SafeNotify` for toasts) and is never parsed.
"""

from __future__ import annotations

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
        super().notify(sanitize(redact(str(message))), title=sanitize(redact(str(title))),  # type: ignore[misc]
                       severity=severity, timeout=timeout, markup=False)
