"""The request fields a user sets rather than the conversation: background mode, text
verbosity and format, service tier, prompt cache key, truncation and the output cap. Each goes in
the body only when set, so a server that knows none of them sees the same request."""

from __future__ import annotations

from typing import Any

from rivulet.core.config import Settings

# prompt_cache_key values that send no key at all.
NO_CACHE_KEY = frozenset({"", "off", "none"})


def add_knobs(body: dict[str, Any], settings: Settings, session_key: str,
              text_format: dict[str, Any] | None = None) -> None:
    """Put the set knobs in `body`. `prompt_cache_key = "session"` (the default) sends
    `session_key`, one per conversation, so its requests share the server's prompt cache.
    `text_format`: the answer's format (`exec --output-schema`'s JSON schema)."""
    if settings.background:  # the server keeps it (store) so that it can be resumed and fetched
        body["background"] = True
        body["store"] = True
    if settings.verbosity:
        body["text"] = {**body.get("text", {}), "verbosity": settings.verbosity}
    if text_format is not None:
        body["text"] = {**body.get("text", {}), "format": text_format}
    if settings.service_tier:
        body["service_tier"] = settings.service_tier
    if settings.truncation:
        body["truncation"] = settings.truncation
    if settings.max_output_tokens:
        body["max_output_tokens"] = settings.max_output_tokens
    key = settings.prompt_cache_key
    if key is not None and key.strip().lower() not in NO_CACHE_KEY:
        body["prompt_cache_key"] = session_key if key == "session" else key
