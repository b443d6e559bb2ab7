"""The status line's one writer: handlers and commands say what changed here, and the
StatusLine widget (widgets/status.py) renders it, once per change. Six modules used to
set the widget's fields and repaint it each in their own way; now a change of state
(a turn started, a retry, a note) is one call, and `tests/app/test_thin_app_rules.py`
checks that nothing else writes the widget's fields."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rivulet.widgets.paint_now import paint_now

if TYPE_CHECKING:
    from rivulet.widgets.status import StatusLine

_SAME: Any = object()  # a field the call leaves as it is

# The widget's fields this board writes (the rule test reads this list).
FIELDS = ("state", "elapsed", "heading", "retry", "note", "cost", "model", "effort", "window",
          "profile", "sandbox", "usage", "total_tokens", "subagents")


class StatusBoard:
    def __init__(self) -> None:
        self._line: StatusLine | None = None

    def bind(self, line: StatusLine) -> None:
        """The chat's status line, once it is mounted."""
        self._line = line

    @property
    def line(self) -> StatusLine:
        """The widget, to read what it shows (its fields are written here only)."""
        assert self._line is not None, "the status line is bound when the chat mounts"
        return self._line

    def set(self, *, state: str = _SAME, elapsed: int = _SAME, heading: str | None = _SAME,
            retry: str | None = _SAME, note: str | None = _SAME,
            cost: Sequence[tuple[str, str]] | None = _SAME,
            model: str = _SAME, effort: str | None = _SAME, window: int | None = _SAME,
            profile: str | None = _SAME, sandbox: str | None = _SAME,
            usage: dict[str, Any] | None = _SAME, total_tokens: int = _SAME, subagents: int = _SAME) -> None:
        """Change the given fields, then draw the line once."""
        line = self.line
        changes = {"state": state, "elapsed": elapsed, "heading": heading, "retry": retry, "note": note,
                   "cost": cost, "model": model, "effort": effort, "window": window, "profile": profile,
                   "sandbox": sandbox, "usage": usage, "total_tokens": total_tokens, "subagents": subagents}
        for name, value in changes.items():
            if value is not _SAME:
                setattr(line, name, value)
        line.refresh_line()

    def say(self, note: str | None) -> None:
        """A note on the left of the line (None: "Ready", or the running turn's state)."""
        self.set(note=note)

    def add_usage(self, usage: dict[str, Any] | None) -> None:
        """A response's usage: the context it holds, and the session's tokens so far."""
        self.line.set_usage(usage)

    def hint_from(self, source: Callable[[], str | None]) -> None:
        """Where the running turn's key hint comes from (the queue's "tab to steer")."""
        self.line.steer_hint = source

    def paint_now(self) -> None:
        """Put the line on the terminal now, before the layout a batch may be waiting for."""
        paint_now(self.line)
