"""The error taxonomy: every failure below the state machine becomes one of these.

Each error says whether the sampling loop may retry it (`retryable`) and, when the
server said how long to wait, `retry_after` in seconds.  The classification follows
the Responses API's error codes: context length, quota and invalid requests are
fatal; server errors, rate limits with a parsed delay and cut streams are
retryable; an incomplete response is a final (cut) answer.  Messages never contain credentials: `redact` scrubs
anything that looks like a key before it is stored in an error.
"""

from __future__ import annotations

import json
import re
from datetime import UTC
from typing import Any

from rivulet.core.sanitize import sanitize

# Key shapes of common providers (a server may echo any of them back in an error body).
# Both patterns are compiled at their first use (re's own cache), not at import: compiling
# them cost ~5 ms of every start, and a run without an error never uses them.
_KEY_PATTERN = (
    r"(?<![A-Za-z0-9])(sk-[A-Za-z0-9_\-]{6,}"  # OpenAI, Anthropic (sk-ant-), DeepSeek, ...
    r"|sk_(?:live|test)_[A-Za-z0-9]{8,}|rk_(?:live|test)_[A-Za-z0-9]{8,}"  # Stripe
    r"|AIza[0-9A-Za-z_\-]{20,}"  # Google
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"  # GitHub
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|xox[abposr]-[A-Za-z0-9\-]{8,}"  # Slack
    r"|hf_[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,}|xai-[A-Za-z0-9]{20,}|pplx-[A-Za-z0-9]{20,}"  # HF, Groq, xAI, Perplexity
    r"|(?:Bearer|Basic)\s+[A-Za-z0-9_\-\.+/=]{6,}"
    r"|(?:api[_-]?key|x-api-key|access[_-]?token)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9_\-\.]{12,})"
)
# The configured key, whatever its shape: masked by value wherever text leaves rivulet.
_SECRETS: set[str] = set()
# "Please try again in 1.898s" / "in 20ms" / "in 2m3s" as the API phrases it.
_RETRY_IN = (
    r"try again in\s+(?:(?P<min>\d+(?:\.\d+)?)m(?!s))?\s*(?:(?P<sec>\d+(?:\.\d+)?)s|(?P<ms>\d+(?:\.\d+)?)ms)?"
)


def register_secret(value: str | None) -> None:
    """Mask this exact value (the configured API key) in every error, log line and toast."""
    if value and len(value) >= 8:
        _SECRETS.add(value)


def redact(text: str) -> str:
    """Replace the registered secrets and anything shaped like an API key or bearer token."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return re.sub(_KEY_PATTERN, "[redacted]", text, flags=re.IGNORECASE)


class RivuletError(Exception):
    """Base class. `retryable` decides whether the sampling loop may try again."""

    retryable: bool = False
    kind: str = "error"

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        # Server text: secrets masked and controls made visible before anything can print it.
        self.message = sanitize(redact(str(message)))
        self.retry_after = retry_after
        super().__init__(self.message)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message, "retryable": self.retryable}
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out


# ---- stream-level faults -------------------------------------------------------------


class ProtocolError(RivuletError):
    """The server sent an illegal sequence (e.g. a delta with no active item)."""

    kind = "protocol_error"


class StreamError(RivuletError):
    """The stream was cut, went idle or ended before `response.completed`."""

    retryable = True
    kind = "stream_error"


class ServerUnreachable(StreamError):
    """No connection could be made (refused, no route): the server is not there, or not
    yet (a local one restarting: core/turn/retry_policy.py waits for it)."""


class MalformedEventError(RivuletError):
    """An SSE data payload that is not JSON, or a known event missing required fields."""

    kind = "malformed_event"


class ConfigError(RivuletError):
    kind = "config_error"


class LimitExceeded(RivuletError):
    """The server sent more than a configured cap allows (items, item size)."""

    kind = "limit_exceeded"


class RetryWaitTooLong(RivuletError):
    """The server asked for a longer wait before a retry than `max_retry_wait` allows:
    said at once rather than slept through unseen."""

    kind = "retry_wait_too_long"


# ---- errors the API reported ---------------------------------------------------------


class ApiError(RivuletError):
    """An error the server reported, over HTTP status, an `error` event or `response.failed`."""

    kind = "api_error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, retry_after=retry_after)
        self.code = code
        self.status = status
        self.body: str | None = None  # the whole error body, when it came over HTTP

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.code is not None:
            out["code"] = self.code
        if self.status is not None:
            out["status"] = self.status
        return out


class ContextLengthExceeded(ApiError):
    kind = "context_length_exceeded"


class QuotaExceeded(ApiError):
    kind = "quota_exceeded"


class InvalidRequest(ApiError):
    kind = "invalid_request"


class UnsupportedInput(ApiError):
    """The server says this request cannot work as sent (an image for a text-only model,
    its parser refusing the output): never retried, whatever the HTTP status."""

    kind = "unsupported_input"


class AuthenticationError(ApiError):
    kind = "authentication_error"


class RateLimited(ApiError):
    """Retryable only when the server told us how long to wait: without a delay a
    client that retries just hammers the limit, so it is shown instead."""

    kind = "rate_limited"

    @property
    def retryable(self) -> bool:  # type: ignore[override]
        return self.retry_after is not None


class ServerError(ApiError):
    retryable = True
    kind = "server_error"


class ResponseIncomplete(ApiError):
    """`response.incomplete`: the server stopped early (max_output_tokens,
    content_filter). A final answer, not a fault: retrying only repeats the same cut
    (Codex does not retry it either), so it is never retried."""

    kind = "response_incomplete"
    partial: str | None = None  # the cut answer's text, shown as it is


class ResponseFailed(ApiError):
    """`response.failed` with a code we cannot place in a more precise class."""

    kind = "response_failed"


_FATAL_CODES: dict[str, type[ApiError]] = {
    "context_length_exceeded": ContextLengthExceeded,
    "insufficient_quota": QuotaExceeded,
    "usage_not_included": QuotaExceeded,
    "billing_hard_limit_reached": QuotaExceeded,
    "invalid_prompt": InvalidRequest,
    "invalid_request_error": InvalidRequest,
    "invalid_api_key": AuthenticationError,
}
_RETRYABLE_CODES: dict[str, type[ApiError]] = {
    "server_error": ServerError,
    "server_is_overloaded": ServerError,
    "slow_down": ServerError,
    "internal_error": ServerError,
    "rate_limit_exceeded": RateLimited,
    "rate_limit_error": RateLimited,
}


def parse_retry_after(message: str | None, header: str | None = None) -> float | None:
    """The delay the server asked for: a `Retry-After`/`retry-after-ms` header (seconds,
    or an HTTP date as RFC 9110 allows) or the 'try again in 1.5s' phrase of the message."""
    if header:
        try:
            return max(0.0, float(header))
        except ValueError:
            pass
        when = _http_date(header)
        if when is not None:
            return when
    if not message:
        return None
    m = re.search(_RETRY_IN, message, re.IGNORECASE)
    if not m or not any(m.group(g) for g in ("min", "sec", "ms")):
        return None
    total = 0.0
    if m.group("min"):
        total += float(m.group("min")) * 60
    if m.group("sec"):
        total += float(m.group("sec"))
    if m.group("ms"):
        total += float(m.group("ms")) / 1000
    return total


def _http_date(header: str) -> float | None:
    """Seconds from now until `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT` (0 when past)."""
    import email.utils
    from datetime import datetime

    try:
        when = email.utils.parsedate_to_datetime(header.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT; "-0000" parses as naive
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


# What a server says when the request itself can never succeed as sent, whatever its
# status (llama.cpp answers both with a 500): input of a kind the loaded model cannot
# take (images or audio without a multimodal projector, "mmproj"), and its chat parser
# refusing the model's output (a tool call it cannot place). A retry sends the same
# request and waits the same generation time for the same refusal.
_UNSUPPORTED = re.compile(
    r"input is not supported|mmproj|only '?text'? content type is supported"
    r"|failed to parse input at pos|does not match the expected [\w-]+ format",
    re.IGNORECASE)


def _unsupported_hint(message: str) -> str:
    lowered = message.lower()
    if "parse" in lowered or "format" in lowered:
        return "the server's chat parser refused the model's output"
    return "the model on this server cannot take this input (an image or audio: remove it)"


def classify(
    *,
    code: str | None,
    message: str,
    status: int | None = None,
    error_type: str | None = None,
    retry_after_header: str | None = None,
) -> ApiError:
    """Map an error the server reported (by code, type and HTTP status) to its class."""
    message = message or (code or error_type or f"HTTP {status}")
    retry_after = parse_retry_after(message, retry_after_header)
    if _UNSUPPORTED.search(message):
        return UnsupportedInput(f"{message}; not retried: {_unsupported_hint(message)}", code=code, status=status)
    for key in (code, error_type):
        if key and key in _FATAL_CODES:
            return _FATAL_CODES[key](message, code=code or key, status=status)
        if key and key in _RETRYABLE_CODES:
            return _RETRYABLE_CODES[key](message, code=code or key, status=status, retry_after=retry_after)
    if status is not None:
        if status == 429:
            return RateLimited(message, code=code, status=status, retry_after=retry_after)
        if status in (401, 403):
            return AuthenticationError(message, code=code, status=status)
        if status >= 500:
            return ServerError(message, code=code, status=status, retry_after=retry_after)
        if 400 <= status < 500:
            if "context" in message.lower() and "length" in message.lower():
                return ContextLengthExceeded(message, code=code, status=status)
            return InvalidRequest(message, code=code, status=status)
    return ResponseFailed(message, code=code, status=status, retry_after=retry_after)


def error_from_body(status: int, body: bytes | bytearray | str, retry_after_header: str | None = None) -> ApiError:
    """An HTTP error response (any body shape: OpenAI's, FastAPI's 422, an HTML page,
    plain text) as one short line; the whole body stays on the error as `body`."""
    text = bytes(body).decode("utf-8", "replace") if not isinstance(body, str) else body
    code = etype = None
    message = one_line(text)
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        err = parsed.get("error", parsed)
        if isinstance(err, dict):
            code = _str_or_none(err.get("code"))
            etype = _str_or_none(err.get("type"))
            message = one_line(str(err.get("message") or err.get("detail") or message))
        elif isinstance(err, str):
            message = one_line(err)
    error = classify(code=code, message=message or f"HTTP {status}", status=status, error_type=etype,
                     retry_after_header=retry_after_header)
    error.body = redact(text)
    return error


# An HTML page's, compiled (re's cache) and `html` imported with the first page: no start pays them.
_TITLE = r"<title[^>]*>(.*?)</title>"
_TAG = r"<[^>]+>"
_SKIP = r"<(script|style|head)[^>]*>.*?</\1>"
ONE_LINE_MAX = 200


def one_line(text: str, limit: int = ONE_LINE_MAX) -> str:
    """A server's text as one short line: an HTML page becomes its title (or its first
    line of visible text), anything else its first non-empty line, capped."""
    stripped = text.strip()
    if stripped[:1] == "<" or "<html" in stripped[:500].lower():
        import html

        title = re.search(_TITLE, stripped, re.IGNORECASE | re.DOTALL)
        if title and title.group(1).strip():
            stripped = title.group(1)
        else:
            stripped = re.sub(_TAG, "\n", re.sub(_SKIP, "", stripped, flags=re.IGNORECASE | re.DOTALL))
        stripped = html.unescape(stripped)
    line = next((ln.strip() for ln in stripped.splitlines() if ln.strip()), "")
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)
