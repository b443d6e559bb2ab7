"""Settings: defaults < config file (TOML) < environment < command line.

pydantic-settings does the layering; the API key is a `SecretStr` so it never shows
in a repr, a log line or an error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from platformdirs import user_config_dir
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from .errors import ConfigError

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def config_path() -> Path:
    override = os.environ.get("RIVULET_CONFIG")
    return Path(override) if override else Path(user_config_dir("rivulet")) / "config.toml"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RIVULET_", extra="ignore", populate_by_name=True)

    base_url: str = Field(DEFAULT_BASE_URL, validation_alias=AliasChoices("base_url", "RIVULET_BASE_URL", "OPENAI_BASE_URL"))
    api_key: SecretStr | None = Field(None, validation_alias=AliasChoices("api_key", "RIVULET_API_KEY", "OPENAI_API_KEY"))
    model: str = "gpt-5.1-codex"
    instructions: str | None = None
    # Extra HTTP headers sent with every request (e.g. an org or project id).
    headers: dict[str, str] = Field(default_factory=dict)
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
    theme: str = "rivulet-dark"
    # Keep every conversation in a session file (resume, inspect, export).
    save_sessions: bool = True
    # sse | ws (Responses WebSocket, falling back to SSE) | auto (ws where the provider has it)
    transport: Literal["sse", "ws", "auto"] = "auto"
    # Over the WebSocket, send only the new items with previous_response_id when possible.
    ws_incremental: bool = True
    # Tools. approval: ask (every command and patch asks), auto-edit (patches inside the
    # workspace run without asking), never-ask (sandboxes, CI).
    approval: Literal["ask", "auto-edit", "never-ask"] = "ask"
    workspace: str | None = None  # the directory tools work in (default: where rivulet started)
    patch_tool: Literal["custom", "function", "off"] = "custom"  # function: for servers without custom tools
    shell_tool: bool = True
    shell_timeout: float = Field(120.0, gt=0)
    # Binding id -> keys (comma-separated), e.g. "composer.submit" = "ctrl+s" (Textual keymaps).
    keymap: dict[str, str] = Field(default_factory=dict)
    # When a turn ends or an approval waits while the terminal is unfocused: auto (OSC 9
    # where the terminal is known to show it, else the bell), bell, osc9, osc777 or off.
    notify: Literal["auto", "bell", "osc9", "osc777", "off"] = "auto"

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url must be an http(s) URL, got {safe_url(value)!r}")
        return value.rstrip("/")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls, toml_file=config_path()))

    def auth_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.api_key is not None and self.api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {self.api_key.get_secret_value()}"
        return headers


def tool_settings(settings: Settings):
    """The tool router's settings (workspace resolved, must exist)."""
    from .agent_tools import ToolSettings

    workspace = Path(settings.workspace or os.getcwd()).expanduser()
    if not workspace.is_dir():
        raise ConfigError(f"workspace {str(workspace)!r} is not a directory")
    key = settings.api_key.get_secret_value() if settings.api_key is not None else ""
    return ToolSettings(workspace=workspace.resolve(), patch_tool=settings.patch_tool, shell=settings.shell_tool,
                        shell_timeout=settings.shell_timeout, secrets=(key,) if len(key) >= 8 else ())


def load_settings(**overrides: Any) -> Settings:
    """Settings from every source, with a one-line ConfigError on bad input that names
    where the bad value came from: a flag, an environment variable or the config file."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    path = config_path()
    if os.environ.get("RIVULET_CONFIG") and not path.exists():
        raise ConfigError(f"$RIVULET_CONFIG names {str(path)!r}, which is not a file")
    check_config_keys(path)
    try:
        return Settings(**clean)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first.get("loc", ())]
        field = loc[0] if loc else ""
        message = str(first.get("msg", "")).removeprefix("Value error, ")
        raise ConfigError(f"bad {source_of(field, clean)}: {message}") from None
    except (OSError, ValueError) as exc:  # an unreadable or invalid TOML file
        raise ConfigError(f"cannot read config file {path}: {exc}") from None


def source_of(field: str, overrides: dict[str, Any]) -> str:
    """Where a setting's value came from, the way the user wrote it."""
    if field in overrides:
        return f"--{field.replace('_', '-')}"
    info = Settings.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    names = [n for n in getattr(alias, "choices", ()) if isinstance(n, str) and n.isupper()] or \
        [f"RIVULET_{field.upper()}"]
    for name in names:
        if name in os.environ:
            return f"${name}"
    return f"{field!r} in config file {config_path()}"


def check_config_keys(path: Path) -> None:
    """An unknown key in the config file is an error that suggests the nearest name: a
    misspelt setting would otherwise be ignored without a word."""
    import difflib
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    known = set(Settings.model_fields)
    for key in data:
        if key not in known:
            near = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"unknown setting {key!r} in config file {path}{hint}")


def safe_url(url: str) -> str:
    """A URL without userinfo or query (either may carry credentials)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid url>"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def save_setting(name: str, value: Any) -> None:
    """Remember one top-level setting in the config file, keeping everything else in it."""
    import tomllib

    import tomli_w

    path = config_path()
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot update config file {path}: {exc}") from None
    data[name] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomli_w.dumps(data))
    tmp.replace(path)
