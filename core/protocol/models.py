"""Which models a server offers, how much context each holds, and how much is left.

`list_models` asks `GET {base_url}/models` (OpenAI's list shape: `{"data": [{"id": ...}]}`)
and falls back to the configured `models` list when the server has no such endpoint or
fails. A server may say how large a model's context is (llama.cpp: `meta.n_ctx`, the
window it was started with; vLLM: `max_model_len`; OpenRouter: `context_length`); that
beats the table of known models below, and the `context_window` setting beats both.
"""

from __future__ import annotations

import fnmatch
from typing import Any

import httpx
import msgspec

from rivulet.core.config import Settings
from rivulet.core.errors import RivuletError
from rivulet.core.protocol.json_request import JsonRequestError, request_json


class ModelsError(RivuletError):
    kind = "models_error"


class ModelInfo(msgspec.Struct, frozen=True, dict=True):
    id: str
    context_window: int | None = None  # as the server reported it
    owned_by: str | None = None


class ModelList(msgspec.Struct, dict=True):
    models: list[ModelInfo] = msgspec.field(default_factory=list)
    source: str = "server"  # "server" or "config"
    error: str | None = None  # why the server's list was not used (one line)

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.models]


# Input context windows (tokens) of known models, first match wins; names are matched
# on their last path segment, lower-cased (servers name local models by file path). The
# numbers are the published input limits, rounded down where a family varies:
# gpt-5's 400k window holds at most 272k of input (the rest is reserved for output);
# Qwen and Llama families are given their native windows, not their extended (YaRN)
# ones, and a local server often runs a smaller one: its own report wins.
KNOWN_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-5*-chat*", 128_000),
    ("gpt-5*", 272_000),
    ("gpt-4.1*", 1_047_576),
    ("gpt-4o*", 128_000),
    ("o1-mini*", 128_000),
    ("o1-preview*", 128_000),
    ("o1*", 200_000),
    ("o3*", 200_000),
    ("o4*", 200_000),
    ("gpt-oss*", 131_072),
    ("qwen3*2507*", 262_144),
    ("qwen*", 32_768),
    ("*llama-3.1*", 131_072), ("*llama-3.2*", 131_072), ("*llama-3.3*", 131_072),
    ("*llama3.1*", 131_072), ("*llama3.2*", 131_072), ("*llama3.3*", 131_072),
    ("*llama-2*", 4_096), ("*llama2*", 4_096),
    ("*llama*", 8_192),
)


def known_context_window(model: str) -> int | None:
    name = model.rstrip("/").rsplit("/", 1)[-1].lower()
    for pattern, window in KNOWN_WINDOWS:
        if fnmatch.fnmatchcase(name, pattern):
            return window
    return None


def context_window(settings: Settings, model: str | None = None, reported: int | None = None) -> int | None:
    """The window to measure against: the `context_window` setting, else what the
    server reported for the model, else the table. None: unknown."""
    if settings.context_window:
        return settings.context_window
    if reported:
        return reported
    return known_context_window(model or settings.model)


def _reported_window(entry: dict[str, Any]) -> int | None:
    meta = entry.get("meta")
    for value in (meta.get("n_ctx") if isinstance(meta, dict) else None, entry.get("max_model_len"),
                  entry.get("context_length"), entry.get("context_window")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def parse_models(data: Any) -> list[ModelInfo]:
    """The models of a `/models` body; entries without a string id are skipped."""
    entries = data.get("data") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ModelsError("the server's model list has no 'data' array")
    out: dict[str, ModelInfo] = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and entry["id"]:
            owner = entry.get("owned_by")
            out.setdefault(entry["id"], ModelInfo(entry["id"], _reported_window(entry),
                                                  owner if isinstance(owner, str) else None))
    return sorted(out.values(), key=lambda m: m.id)


async def fetch_models(settings: Settings, client: httpx.AsyncClient | None = None,
                       timeout: float = 20.0) -> list[ModelInfo]:
    """`GET {base_url}/models`. Raises a one-line RivuletError on any failure."""
    try:
        data = await request_json(settings, "GET", "models", what="its models", client=client, timeout=timeout)
    except JsonRequestError as exc:
        raise ModelsError(exc.message) from None
    try:
        return parse_models(data)
    except ModelsError as exc:
        raise ModelsError(f"{settings.endpoint.display('models')}: {exc.message}") from None


async def list_models(settings: Settings, client: httpx.AsyncClient | None = None,
                      timeout: float = 20.0) -> ModelList:
    """The server's models, else the configured `models` list (with why). Raises only
    when the server failed and nothing is configured."""
    try:
        found = await fetch_models(settings, client, timeout)
        error = None if found else f"{settings.endpoint.display('models')} listed no models"
    except RivuletError as exc:
        found, error = [], exc.message
    if found:
        return ModelList(found, "server")
    if settings.models:
        return ModelList([ModelInfo(m) for m in dict.fromkeys(settings.models)], "config", error)
    raise ModelsError(f"{error}; set `models` in the config file to choose from a list")
