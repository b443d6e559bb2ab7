"""Which context window a model has, and where that figure came from.

The `context_window` setting wins. Else the server's `/models` list, when it says
how large a model's window is (llama.cpp's `meta.n_ctx`, the window it was started
with, not the one the model was trained for): a local server names its model by its
file (`/models/qwen2.5-1.5b-instruct-q4_k_m.gguf`) and serves it whatever model the
request names, so the listed model is found by exact id, else as the only model the
server lists, else by the name's file name or a prefix of it (`qwen`). Else the table
of known models (models.py), else unknown. `/status` says which of these it was.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from rivulet.core.config import Settings
from rivulet.core.protocol.models import ModelInfo, known_context_window

SETTING, SERVER, TABLE, UNKNOWN = "setting", "server", "table", "unknown"


class Window(msgspec.Struct, frozen=True, dict=True):
    tokens: int | None
    source: str  # SETTING, SERVER, TABLE or UNKNOWN
    listed_as: str | None = None  # the server's id of the model, when the server said

    def describe(self) -> str:
        """Where the figure came from, for /status."""
        if self.source == SETTING:
            return "the context_window setting"
        if self.source == SERVER:
            return f"the server's /models ({self.listed_as})"
        if self.source == TABLE:
            return "rivulet's table of known models"
        return "unknown: the server does not say and the model is not in rivulet's table (set context_window)"


def _stem(name: str) -> str:
    """A model name as a file: its last path segment, lower-cased, without `.gguf`."""
    base = name.rstrip("/").rsplit("/", 1)[-1].lower()
    return base.removesuffix(".gguf")


def listed_model(model: str, listed: Sequence[ModelInfo]) -> ModelInfo | None:
    """The listed model that `model` means, among those that report a window: by
    exact id, else the only one there is, else a unique match of the file name
    (`qwen2.5-1.5b-instruct-q4_k_m` for `/models/qwen2.5-1.5b-instruct-q4_k_m.gguf`),
    else a unique prefix of it (`qwen`). Several matches and none exact: none (a
    guess could be several times off)."""
    sized = [m for m in listed if m.context_window]
    for m in sized:
        if m.id == model:
            return m
    if len(listed) == 1:
        return sized[0] if sized else None
    wanted = _stem(model)
    if not wanted:
        return None
    for matches in ([m for m in sized if _stem(m.id) == wanted],
                    [m for m in sized if _stem(m.id).startswith(wanted)]):
        if len(matches) == 1:
            return matches[0]
        if matches:
            return None
    return None


def choose_window(settings: Settings, model: str | None = None,
                  listed: Sequence[ModelInfo] | None = None) -> Window:
    """The window to measure `model` (the settings' model by default) against."""
    if settings.context_window:
        return Window(settings.context_window, SETTING)
    name = model or settings.model
    found = listed_model(name, listed or ())
    if found is not None and found.context_window:
        return Window(found.context_window, SERVER, found.id)
    known = known_context_window(name)
    return Window(known, TABLE) if known else Window(None, UNKNOWN)


class ModelWindows:
    """What the server's `/models` said, once learned (the chat asks at start, in the
    background), and the window of any model from it. Shared by the status line,
    /status and automatic compaction, so they cannot disagree."""

    def __init__(self) -> None:
        self.listed: list[ModelInfo] = []

    def learn(self, models: Sequence[ModelInfo]) -> None:
        self.listed = list(models)

    def choose(self, settings: Settings, model: str | None = None) -> Window:
        return choose_window(settings, model, self.listed)


class NoWindows(ModelWindows):
    """A replay: its "model" is a file's name, so no table entry may give it a window
    (`replay of llamacpp_….sse` would pass for a Llama)."""

    def choose(self, settings: Settings, model: str | None = None) -> Window:
        return Window(None, UNKNOWN)
