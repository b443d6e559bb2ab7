"""Logs and stderr carry server and model text: sanitise and redact it on the way out.

`SafeLogFilter` rewrites each record's message (and its traceback text) before any
handler formats it, so `--log-level DEBUG` cannot print an ESC sequence or a key.
`SafeStream` wraps a text stream for whatever else prints there (the app's crash report).
"""

from __future__ import annotations

import logging
from typing import Any, TextIO

from rivulet.core.errors import redact
from rivulet.core.sanitize import sanitize


def clean(text: str) -> str:
    return sanitize(redact(text))


class SafeLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what can be shown
            message = f"{record.msg!r} {record.args!r}"
        record.msg, record.args = clean(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = clean(logging.Formatter().formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = clean(record.stack_info)
        return True


def install_log_filter(logger: logging.Logger | None = None) -> None:
    """Put the filter on every handler of `logger` (default: the root logger)."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, SafeLogFilter) for f in handler.filters):
            handler.addFilter(SafeLogFilter())


class SafeStream:
    """A write-only text stream that sanitises and redacts what goes through it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(clean(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return False  # no colour codes: the report is plain text

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
