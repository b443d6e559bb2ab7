"""Settings: defaults < provider preset < config file (TOML) < profile < environment <
`-c key=value` < flags.

`layered` gathers the sources (`config_sources.stack`, as pydantic-settings did, which
cost a third of `exec`'s start: ~150 ms of imports for four dictionaries), and
`config_fields.check_fast` validates the result; only input it cannot vouch for goes to
pydantic (config_pydantic.py), whose import alone had cost half of a tiny `exec` turn.
The API key is a `SecretStr` so it never shows in a repr, a log line or an error. What
needs no validation (the file, its path, the layering, safe URLs, the first frame's
`peek`) is in `config_sources.py`, re-exported here.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from types import UnionType
from typing import Any, ClassVar, Literal, Union, get_args, get_origin, get_type_hints
from urllib.parse import urlsplit

import msgspec

from rivulet.core.config_fields import AliasChoices, Check, Field, FieldSpec, SecretStr, Unsure, checker, constrained
from rivulet.core.config_sources import (
    API_KEY_ENV,
    BASE_URL_ENV,
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    DEFAULT_THEME,
    Layers,
    config_path,
    is_loopback,
    parsed_overrides,
    safe_url,
    stack,
)
from rivulet.core.config_sources import read_config_document as read_config_document
from rivulet.core.config_sources import save_setting as save_setting
from rivulet.core.config_sources import sessions_dir as sessions_dir
from rivulet.core.config_sources import write_config_document as write_config_document
from rivulet.core.errors import ConfigError, register_secret

ENV_PREFIX = "RIVULET_"


class Settings:
    """Built from every source: `Settings(model="m")` is that flag over the environment
    over the config file over the defaults (see `layered`). A bad value raises pydantic's
    ValidationError (a ValueError), as when this was a pydantic model."""

    # Each field's spec (default, bounds, aliases, annotation), filled in below the class.
    model_fields: ClassVar[dict[str, FieldSpec]] = {}
    # Where each value came from, what the user set, and what the capability cache applied
    # (setting -> why): see config_sources.Layers and core/capabilities.py.
    _origin: dict[str, str]
    _explicit: frozenset[str]
    _applied: dict[str, str]

    base_url: str = Field(DEFAULT_BASE_URL,
                          validation_alias=AliasChoices("base_url", *BASE_URL_ENV))
    api_key: SecretStr | None = Field(None,
                                      validation_alias=AliasChoices("api_key", *API_KEY_ENV))
    model: str = DEFAULT_MODEL
    instructions: str | None = None
    # Extra HTTP headers sent with every request (e.g. an org or project id).
    headers: dict[str, str] = Field(default_factory=dict)
    # The provider preset beneath these settings (core/providers.py); None: none.
    provider: Literal["openai", "azure", "openrouter", "llamacpp", "vllm", "ollama", "lmstudio", "custom"] | None \
        = None
    # How the key is sent: bearer (Authorization: Bearer), api-key (Azure's header), none.
    auth: Literal["bearer", "api-key", "none"] = "bearer"
    # The environment variable the key is read from instead of $OPENAI_API_KEY (the key never
    # lives in a profile or on the command line).
    api_key_env: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    # Probe a server that is not OpenAI's once, in the chat's background, and apply what it
    # supports from then on (core/capabilities.py); what the user sets always wins.
    probe_servers: bool = True
    # Query parameters added to every request's URL (Azure's api-version).
    query: dict[str, str] = Field(default_factory=dict)
    # The active profile, and the [profiles.NAME] tables (each a set of these settings).
    profile: str | None = None
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # Seconds without any event before the stream counts as dead (Codex uses 300).
    idle_timeout: float = 300.0
    connect_timeout: float = 15.0
    reasoning_effort: Literal["minimal", "low", "medium", "high", "xhigh", "none"] | None = None
    # "auto" asks reasoning models for summaries; None sends no reasoning block at all.
    reasoning_summary: Literal["auto", "concise", "detailed", "off"] | None = "auto"
    store: bool = False
    max_follow_ups: int = Field(16, ge=0)
    # Retries of one request after a retryable error (cut stream, 5xx, rate limit with a delay).
    max_retries: int = Field(4, ge=0)
    # The longest wait a server's Retry-After may ask for, in seconds; past it the error is
    # shown at once instead of a silent sleep.
    max_retry_wait: float = Field(60.0, ge=0)
    # Turn every tolerated protocol deviation into an error (for server developers).
    strict_protocol: bool = False
    # Caps on one response: its output items, and the streamed text of one item.
    max_items_per_response: int = Field(10_000, ge=1)
    max_item_chars: int = Field(16_000_000, ge=1)
    theme: str = DEFAULT_THEME
    # The AGENTS.md files (repository root down to the workspace) sent before `instructions`:
    # at most this many bytes of them (Codex's default); 0 reads none.
    project_instructions_max_bytes: int = Field(32 * 1024, ge=0)
    # Models to choose from when the server cannot list its own (GET /models).
    models: list[str] = Field(default_factory=list)
    # The model's context window in tokens, when the built-in table or the server is wrong.
    context_window: int | None = Field(None, gt=0)
    # Compact the history before a turn once the context is this percent full (0: never).
    auto_compact_percent: int = Field(90, ge=0, le=100)
    # server: POST /responses/compact (OpenAI); summary: the model summarises older turns;
    # auto: server on api.openai.com, summary elsewhere.
    compaction: Literal["auto", "server", "summary"] = "auto"
    # The newest turns a summary compaction keeps word for word after the summary.
    compact_keep_turns: int = Field(2, ge=0)
    # Caps on what `@path` / --image attach: a text file's bytes, an image's bytes.
    attach_max_bytes: int = Field(256 * 1024, ge=1)
    image_max_bytes: int = Field(8 * 1024 * 1024, ge=1)
    # Keep every conversation in a session file (resume, inspect, export).
    save_sessions: bool = True
    # sse | ws (Responses WebSocket, falling back to SSE) | auto (ws where the provider has it)
    transport: Literal["sse", "ws", "auto"] = "auto"
    # Over the WebSocket, send only the new items with previous_response_id when possible.
    ws_incremental: bool = True
    # Tools. approval: ask (every command and patch asks), auto-edit (patches inside the
    # workspace run without asking), never-ask (sandboxes, CI).
    # auto: auto-edit, and commands inside the sandbox run without asking (leaving it asks).
    approval: Literal["ask", "auto-edit", "auto", "never-ask"] = "ask"
    workspace: str | None = None  # the directory tools work in (default: where rivulet started)
    # auto: the custom grammar tool on OpenAI's API, the JSON function elsewhere (llama.cpp
    # drops custom tools silently); custom / function force one; off offers none.
    patch_tool: Literal["auto", "custom", "function", "off"] = "auto"
    shell_tool: bool = True
    shell_timeout: float = Field(120.0, gt=0)
    # The shell tool's bubblewrap sandbox: workspace-write | read-only | off (see core/sandbox.py).
    sandbox: Literal["workspace-write", "read-only", "off"] = "workspace-write"
    sandbox_network: bool = False  # let sandboxed commands reach the network
    # Caps on one tool call's arguments and on one patch, in characters (past them: an error to the model).
    max_tool_args_chars: int = Field(4_000_000, ge=1)
    max_patch_chars: int = Field(4_000_000, ge=1)
    # Send the API key over plain http to a host that is not this machine (off: refused).
    allow_insecure_http: bool = False
    # Patches touching these always ask, even under auto-edit (glob patterns; see core/protected.py).
    # None: the default list (core/tools/protected.py).
    protected_paths: list[str] | None = None
    # Checkpoints of the workspace per turn, for /undo, /redo and rewinds (core/checkpoints):
    # kept per workspace, the newest `checkpoint_keep` within `checkpoint_max_mb` of content;
    # a file over `checkpoint_file_max_mb`, or past `checkpoint_turn_max_mb` in one walk, is not kept.
    checkpoints: bool = True
    checkpoint_keep: int = Field(100, ge=1)
    checkpoint_max_mb: float = Field(1024, gt=0)
    checkpoint_file_max_mb: float = Field(8, gt=0)
    checkpoint_turn_max_mb: float = Field(256, gt=0)
    # MCP servers, `[mcp_servers.NAME]` tables; checked by core/tools/mcp_config.py.
    mcp_servers: dict[str, Any] = Field(default_factory=dict)
    # The user's hooks, `[[hooks]]` tables (event, command, timeout, tools); checked by core/hooks/spec.py.
    hooks: list[Any] = Field(default_factory=list)
    # The sandbox hooks run in (None: the `sandbox` setting); "off" for a hook that needs the desktop.
    hooks_sandbox: Literal["workspace-write", "read-only", "off"] | None = None
    # Workspaces whose own .rivulet/hooks.toml runs (a repository is as hostile as the model).
    trusted_workspaces: list[str] = Field(default_factory=list)
    # The line-mode chat (app/plain) instead of the full screen; also when TERM=dumb or stdout is no terminal.
    plain: bool = False
    # Where the user's own /NAME prompts live (None: prompts/ beside the config file).
    prompts_dir: str | None = None

    # Binding id -> keys (comma-separated), e.g. "composer.submit" = "ctrl+s" (Textual keymaps).
    keymap: dict[str, str] = Field(default_factory=dict)
    # When a turn ends or an approval waits while the terminal is unfocused: auto (OSC 9
    # where the terminal is known to show it, else the bell), bell, osc9, osc777 or off.
    notify: Literal["auto", "bell", "osc9", "osc777", "off"] = "auto"
    # How often streaming text is put on the screen, per second (Codex: 20). Each commit
    # costs a layout pass; 30 looks smooth and costs about half of 60 (benchmarks/README.md).
    stream_fps: float = Field(30.0, ge=5, le=120)
    # On quit, the conversation as plain text into the terminal's scrollback (also --print).
    print_on_exit: bool = False
    # Issue 27: the Responses API's own features (README "Hosted tools, background, cost").
    # Requests go with background: true and store: true; a cut stream resumes from its last
    # sequence number, and a quit leaves the response running for `rivulet resume`.
    background: bool = False
    # The server's own tools, as the API's tool objects or their type names alone:
    # web_search, file_search, code_interpreter, image_generation, mcp (checked in
    # core/hosted_tools.py).
    hosted_tools: list[Any] = Field(default_factory=list)
    # Request knobs, sent only when set: text.verbosity, service_tier, truncation,
    # max_output_tokens; prompt_cache_key defaults to one key per session ("session").
    verbosity: Literal["low", "medium", "high"] | None = None
    service_tier: Literal["auto", "default", "flex", "priority", "scale"] | None = None
    prompt_cache_key: str | None = "session"
    truncation: Literal["auto", "disabled"] | None = None
    max_output_tokens: int | None = Field(None, gt=0)
    # Dollars per million tokens by model name (prefix match), over the shipped table in
    # core/turn/prices.py: {"gpt-5": {"input": 1.25, "cached": 0.125, "output": 10}}.
    prices: dict[str, dict[str, float]] = Field(default_factory=dict)

    def __init__(self, _layers: Layers | None = None, **values: Any) -> None:
        layers = _layers if _layers is not None else layered(values)
        given = _validated(layers.values)
        for name, spec in _FIELDS.items():
            setattr(self, name, given[name] if name in given else spec.initial())
        self._origin, self._explicit, self._applied = layers.origin, layers.explicit, {}
        # From now on the key is masked by value in every error, log line and toast.
        if self.api_key is not None:
            register_secret(self.api_key.get_secret_value())

    def model_copy(self, update: dict[str, Any] | None = None) -> Settings:
        """A shallow copy with `update` set (not validated, as pydantic's was not)."""
        twin = copy.copy(self)
        for name, value in (update or {}).items():
            setattr(twin, name, value)
        return twin

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n in _FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a pydantic model

    def __repr__(self) -> str:
        return f"Settings({', '.join(f'{n}={getattr(self, n)!r}' for n in _FIELDS)})"

    @property
    def explicit(self) -> frozenset[str]:
        """The settings the user gave (file, profile, environment, -c, flags)."""
        return self._explicit

    @property
    def applied(self) -> dict[str, str]:
        """Settings the capability cache chose for this server: name -> why."""
        return self._applied

    def origin(self, name: str) -> str:
        """Where a setting's value came from, as the user wrote it ("default" if nowhere)."""
        return self._origin.get(name, "default")

    def insecure_key_problem(self) -> str | None:
        """Why the key must not be sent to base_url (plain http to another machine), or None."""
        if self.api_key is None or not self.api_key.get_secret_value() or self.allow_insecure_http:
            return None
        if urlsplit(self.base_url).scheme == "http" and not is_loopback(self.base_url):
            return (f"refusing to send the API key over plain http to {safe_url(self.base_url)}: use https, "
                    "or set allow_insecure_http = true if this network is trusted")
        return None

    def auth_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        problem = self.insecure_key_problem()
        if problem is not None:  # the one place the key is attached: no transport can skip the check
            raise ConfigError(problem)
        if self.api_key is not None and self.api_key.get_secret_value() and self.auth != "none":
            key = self.api_key.get_secret_value()
            if self.auth == "api-key":
                headers["api-key"] = key
            else:
                headers["Authorization"] = f"Bearer {key}"
        return headers

    def key_variable(self) -> str:
        """The variable the key is read from, for the line that says it is missing."""
        return self.api_key_env or "OPENAI_API_KEY"


def _check_hosted_tools(value: list[Any]) -> list[Any]:
    from rivulet.core.hosted_tools import normalise  # checked once here

    normalise(value)
    return value


def _check_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url must be an http(s) URL, got {safe_url(value)!r}")
    return value.rstrip("/")


# Checks beyond the type, run after it (pydantic runs the same ones on the slow path).
_VALIDATORS: dict[str, Callable[[Any], Any]] = {"hosted_tools": _check_hosted_tools, "base_url": _check_url}


def _fields() -> dict[str, FieldSpec]:
    hints = get_type_hints(Settings)
    out: dict[str, FieldSpec] = {}
    for name, annotation in hints.items():
        if name.startswith("_") or get_origin(annotation) is ClassVar:
            continue
        spec = Settings.__dict__.get(name)
        if not isinstance(spec, FieldSpec):
            spec = FieldSpec(default=spec)
        out[name] = msgspec.structs.replace(spec, annotation=annotation)
    return out


_FIELDS = Settings.model_fields = _fields()
_CHECKS: dict[str, Check] = {n: constrained(checker(f.annotation), f) for n, f in _FIELDS.items()}


def _validated(values: dict[str, Any]) -> dict[str, Any]:
    """The given settings, type-checked and converted; pydantic decides what the fast
    check cannot vouch for (and raises its ValidationError for a bad value)."""
    try:
        return _validated_fast(values)
    except Unsure:
        from rivulet.core.config_pydantic import validate

        return validate(values, _FIELDS, _VALIDATORS)


def _validated_fast(values: dict[str, Any]) -> dict[str, Any]:
    """Every setting in `values` checked without pydantic; Unsure at the first one this
    cannot vouch for (a conversion pydantic makes, or an error it words)."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        check = _CHECKS.get(name)
        if check is None:
            continue  # not a setting: ignored, as pydantic's extra="ignore" did
        value = check(value)
        extra = _VALIDATORS.get(name)
        if extra is not None:
            try:
                value = extra(value)
            except ValueError:
                raise Unsure from None
        out[name] = value
    return out


def env_names(name: str) -> tuple[str, ...]:
    """The environment variables a setting is read from: its aliases' upper-case names,
    else RIVULET_<NAME>."""
    alias = _FIELDS[name].validation_alias
    names = tuple(n for n in getattr(alias, "choices", ()) if isinstance(n, str) and n.isupper())
    return names or (ENV_PREFIX + name.upper(),)


def _by_name(values: dict[str, Any]) -> dict[str, Any]:
    """Keys given as a field's name or one of its aliases, as field names."""
    fields = _FIELDS
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in fields:
            out[key] = value
            continue
        for name, info in fields.items():
            if key in getattr(info.validation_alias, "choices", ()):
                out[name] = value
                break
    return out


def _from_env() -> tuple[dict[str, Any], dict[str, str]]:
    """Every setting found in the environment (names compared without case, as
    pydantic-settings did), and the variable each came from; a dict or list setting is
    JSON there."""
    environ = {k.upper(): v for k, v in os.environ.items()}
    out: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for name, info in _FIELDS.items():
        env = next((n for n in env_names(name) if n in environ), None)
        if env is None:
            continue
        value: Any = environ[env]
        if _is_complex(info.annotation):
            try:
                value = json.loads(value)
            except ValueError as exc:
                raise ConfigError(f"bad ${env}: not JSON ({exc})") from None
        out[name], labels[name] = value, f"${env}"
    return out, labels


def _is_complex(annotation: Any) -> bool:
    """A dict or list setting (alone or in a union with None)."""
    args = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
    return any(a in (dict, list) or get_origin(a) in (dict, list) for a in args)


def layered(init: dict[str, Any], overrides: tuple[str, ...] | list[str] = ()) -> Layers:
    """The provider preset, the config file, the profile, the environment, the `-c`
    items, then `init` (flags) over them."""
    env, labels = _from_env()
    return stack(_by_name(init), env, labels, parsed_overrides(overrides))


def effective_patch_tool(settings: Settings) -> Literal["custom", "function", "off"]:
    """`patch_tool = auto` resolved: only OpenAI's own API is known to accept a custom
    (grammar) tool; other servers get the JSON function."""
    if settings.patch_tool != "auto":
        return settings.patch_tool  # narrowed: not "auto"
    host = (urlsplit(settings.base_url).hostname or "").lower()
    return "custom" if host == "api.openai.com" else "function"


def load_settings(*, overrides: tuple[str, ...] | list[str] = (), **flags: Any) -> Settings:
    """Settings from every source, with a one-line ConfigError on bad input that names
    where the bad value came from: a flag, a -c item, an environment variable, a profile
    or the config file. `overrides` are the `-c key=value` items."""
    clean = {k: v for k, v in flags.items() if v is not None}
    path = config_path()
    layers = layered(clean, overrides)
    try:
        settings = Settings(layers)
    except ValueError as exc:
        errors = _validation_errors(exc)
        if errors is None:  # an unreadable or invalid TOML file
            raise ConfigError(f"cannot read config file {path}: {exc}") from None
        first = errors[0]
        loc = [str(p) for p in first.get("loc", ())]
        field = loc[0] if loc else ""
        message = str(first.get("msg", "")).removeprefix("Value error, ")
        where = layers.origin.get(field) or source_of(field, clean)
        inner = f"{'.'.join(loc)}: " if len(loc) > 1 else ""  # which entry of a table
        raise ConfigError(f"bad {where}: {inner}{message}") from None
    except OSError as exc:  # an unreadable config file
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    problem = settings.insecure_key_problem() or _preset_problem(settings)
    if problem is not None:
        raise ConfigError(problem)
    return settings


def _validation_errors(exc: ValueError) -> list[Any] | None:
    """pydantic's list of errors, if `exc` is its ValidationError (only the slow path,
    which has imported pydantic already, raises one)."""
    if type(exc).__module__.partition(".")[0] not in ("pydantic", "pydantic_core"):
        return None
    errors: list[Any] = exc.errors()  # type: ignore[attr-defined]
    return errors


def _preset_problem(settings: Settings) -> str | None:
    from rivulet.core.providers import PRESETS

    preset = PRESETS.get(settings.provider or "")
    if preset is not None and preset.needs_base_url and "base_url" not in settings.explicit:
        return f"provider {preset.name!r} needs base_url (e.g. https://RESOURCE.openai.azure.com/openai)"
    return None


def source_of(field: str, overrides: dict[str, Any]) -> str:
    """Where a setting's value came from, the way the user wrote it."""
    if field in overrides:
        return f"--{field.replace('_', '-')}"
    names = env_names(field) if field in _FIELDS else (f"RIVULET_{field.upper()}",)
    for name in names:
        if name in os.environ:
            return f"${name}"
    return f"{field!r} in config file {config_path()}"


def check_config_keys(path: Path) -> None:
    """An unknown key in the config file (or in the profile) is an error that suggests
    the nearest name: `stack` checks both."""
    layered({})
