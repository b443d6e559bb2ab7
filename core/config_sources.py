"""Where settings come from, without pydantic: the config file (its path, its TOML, edits
that keep its comments), and the environment.

`core/config.py` validates all of it into `Settings` with pydantic. Importing pydantic and
building the model costs about a tenth of a second of CPU, so the chat draws its first frame from
`peek`: the few values that frame shows (model, server, theme, keymap), read here the
way `Settings` reads them; the full validation follows at once (app/boot.py), and a bad
value still stops the chat with one line.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from rivulet.core.errors import ConfigError, one_line
from rivulet.core.server_endpoint import safe_url as safe_url  # read from here by protocol/keep_alive.py

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-5.1-codex"
DEFAULT_THEME = "rivulet-dark"
# Environment names of the settings that have more than RIVULET_<NAME> (Settings' aliases).
BASE_URL_ENV = ("RIVULET_BASE_URL", "OPENAI_BASE_URL")
API_KEY_ENV = ("RIVULET_API_KEY", "OPENAI_API_KEY")
# The names of Settings' fields, known without building the model: an unknown key in the
# file is refused before the chat draws (tests/core/test_config_sources.py keeps this equal).
SETTING_NAMES = frozenset({
    "allow_insecure_http", "api_key", "api_key_env", "approval", "attach_max_bytes", "auth", "auto_compact_percent",
    "base_url", "compaction", "connect_timeout", "context_window", "headers", "idle_timeout", "image_max_bytes",
    "checkpoint_file_max_mb", "checkpoint_keep", "checkpoint_max_mb", "checkpoint_turn_max_mb", "checkpoints",
    "instructions", "keymap", "max_follow_ups", "max_item_chars", "max_items_per_response", "max_patch_chars",
    "max_retries", "max_retry_wait", "max_tool_args_chars", "mcp_servers", "model", "models", "notify", "patch_tool",
    "probe_servers", "profile", "profiles", "project_instructions_max_bytes", "protected_paths", "provider", "query",
    "reasoning_effort", "reasoning_summary", "sandbox", "sandbox_network", "save_sessions", "shell_timeout",
    "shell_tool", "store", "stream_fps", "strict_protocol", "theme", "transport", "workspace", "ws_incremental",
    "hooks", "hooks_sandbox", "trusted_workspaces", "plain", "prompts_dir",  # hooks, plain mode, own prompts
    "print_on_exit", "compact_keep_turns", "exit_recap_turns",
    # issue 27 (hosted tools, background, request knobs, prices)
    "background", "hosted_tools", "max_output_tokens", "prices", "prompt_cache_key", "service_tier", "truncation",
    "verbosity",
    "subagents", "max_subagents", "subagent_depth",  # issue 41
})


def sessions_dir() -> Path:
    override = os.environ.get("RIVULET_SESSIONS_DIR")
    if override:
        return Path(override)
    from platformdirs import user_data_dir  # ~3 ms of a start: imported when it is asked

    return Path(user_data_dir("rivulet")) / "sessions"


def config_path() -> Path:
    override = os.environ.get("RIVULET_CONFIG")
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir("rivulet")) / "config.toml"


# A config file is a few kilobytes; anything near this is a mistake (or /dev/zero).
CONFIG_MAX_BYTES = 1024 * 1024


def read_config_file(path: Path) -> dict[str, Any]:
    """The config file's tables (empty when there is none); one-line ConfigError otherwise."""
    import tomllib

    if os.environ.get("RIVULET_CONFIG") and not path.exists():
        raise ConfigError(f"$RIVULET_CONFIG names {str(path)!r}, which is not a file")
    try:
        text = read_config_text(path)
        return tomllib.loads(text) if text else {}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None


def read_config_text(path: Path) -> str:
    """The file's text, read only when it is a regular file under CONFIG_MAX_BYTES:
    opened without blocking (a FIFO with no writer would wait forever) and checked with
    fstat before a byte is read (/dev/zero never ends). /dev/null reads as empty, the
    usual way to say "no config". Raises ConfigError, or OSError/ValueError to wrap."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == os.stat(os.devnull).st_rdev:
                return ""
            raise ConfigError(f"config file {path} is not a regular file (it is {_file_kind(info.st_mode)})")
        if info.st_size > CONFIG_MAX_BYTES:
            raise ConfigError(f"config file {path} is {info.st_size:,} bytes, more than the "
                              f"{CONFIG_MAX_BYTES:,} a config file may be")
        data = b""
        while len(data) <= CONFIG_MAX_BYTES:  # it may grow while read
            chunk = os.read(fd, CONFIG_MAX_BYTES + 1 - len(data))
            if not chunk:
                break
            data += chunk
        if len(data) > CONFIG_MAX_BYTES:
            raise ConfigError(f"config file {path} is more than the {CONFIG_MAX_BYTES:,} bytes a config file may be")
        return data.decode("utf-8")
    finally:
        os.close(fd)


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a file"


def check_keys(data: dict[str, Any], known: frozenset[str] | set[str], path: Path, where: str | None = None) -> None:
    """An unknown key in the config file is an error that suggests the nearest name: a
    misspelt setting would otherwise be ignored without a word."""
    for key in data:
        if key not in known:
            import difflib  # only for the hint

            near = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"unknown setting {key!r} in {where or f'config file {path}'}{hint}")


def deep_update(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Tables merge key by key across sources (a header from the file and one from the
    environment both count); any other value is replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_update(out[key], value)
        else:
            out[key] = value
    return out


class Layers(msgspec.Struct, dict=True):
    """Every source stacked: defaults < provider preset < file < profile < environment <
    -c < flags. `values` is what Settings validates; `origin` says, per setting, where
    its value came from as the user wrote it (for error lines); `explicit` is what the
    user set anywhere, which nothing learned (the capability cache) may replace."""

    values: dict[str, Any]
    origin: dict[str, str]
    explicit: frozenset[str]
    profile: str | None = None


def stack(flags: dict[str, Any], env: dict[str, Any], env_labels: dict[str, str],
          overrides: tuple[dict[str, Any], dict[str, str]] = ({}, {}), path: Path | None = None) -> Layers:
    """The sources layered, without validating a value (pydantic does that in config.py;
    `peek` skips what has the wrong type). `env` and `flags` hold field names."""
    path = path or config_path()
    file = read_config_file(path)
    check_keys(file, SETTING_NAMES, path)
    over, over_labels = overrides
    name = next((v for v in (flags.get("profile"), over.get("profile"), env.get("profile"), file.get("profile"))
                 if v is not None), None)
    if name is not None and not isinstance(name, str):
        raise ConfigError("bad profile: a profile is named by a string")
    profile: dict[str, Any] = {}
    if name:
        from rivulet.core.config_profiles import select_profile

        profile = select_profile(file, name, path, SETTING_NAMES)
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    labels: list[tuple[dict[str, Any], Callable[[str], str]]] = [
        (file, lambda k: f"{k!r} in config file {path}"),
        (profile, lambda k: f"{k!r} in profile {name!r} of config file {path}"),
        (env, lambda k: env_labels.get(k, k)), (over, lambda k: over_labels.get(k, f"-c {k}")),
        (flags, lambda k: f"--{k.replace('_', '-')}")]
    for layer, label in labels:
        values = deep_update(values, layer)
        origin.update({k: label(k) for k in layer})
    explicit = frozenset(values)
    preset = None
    if isinstance(values.get("provider"), str):
        from rivulet.core.providers import PRESETS  # (imported only when a preset is named)

        preset = PRESETS.get(values["provider"])
    if preset is not None:
        values = deep_update(preset.settings, values)
        for key in preset.settings:
            origin.setdefault(key, f"provider {preset.name!r}")
    key_env = values.get("api_key_env")
    if isinstance(key_env, str) and key_env:
        # The key comes from this variable alone: OPENAI_API_KEY never goes to Azure or OpenRouter
        # (a key handed over in code, as tests do, stands).
        if "api_key" not in flags:
            values.pop("api_key", None)
        if os.environ.get(key_env) and "api_key" not in flags:
            values["api_key"], origin["api_key"] = os.environ[key_env], f"${key_env}"
    if values.get("auth") == "none":
        values.pop("api_key", None)  # a server that takes none is sent none
    if name is not None:
        values["profile"] = name
    return Layers(values, origin, explicit, name)


class Peek(msgspec.Struct, frozen=True, dict=True):
    """What the chat's first frame shows, before the settings are validated."""

    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    theme: str = DEFAULT_THEME
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    has_key: bool = False
    mcp_servers: Any = None  # the file's [mcp_servers] table, checked before the chat draws
    profile: str | None = None  # the profile picked (-p, $RIVULET_PROFILE, `profile = ...`)

    @property
    def needs_demo(self) -> bool:
        """Neither a key nor a server: the chat starts the embedded demo (app/launch.py)."""
        return not self.has_key and self.base_url == DEFAULT_BASE_URL


def parsed_overrides(items: tuple[str, ...] | list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The -c items as tables and labels (config_overrides.py, imported only when there are some)."""
    if not items:
        return {}, {}
    from rivulet.core.config_overrides import parse_overrides

    return parse_overrides(items, SETTING_NAMES)


# The environment variables `peek` reads (the string settings its frame and layering need).
PEEK_ENV = {"base_url": BASE_URL_ENV, "api_key": API_KEY_ENV, "model": ("RIVULET_MODEL",),
            "theme": ("RIVULET_THEME",), "profile": ("RIVULET_PROFILE",), "provider": ("RIVULET_PROVIDER",),
            "api_key_env": ("RIVULET_API_KEY_ENV",), "auth": ("RIVULET_AUTH",)}


def peek(*, overrides: tuple[str, ...] | list[str] = (), **flags: Any) -> Peek:
    """Flags over -c over the environment over the profile over the file over the
    provider's preset, as `Settings` layers them (`stack`), for the fields of `Peek`
    alone. A value of the wrong type is skipped here: the validation that follows names
    it. The file's syntax and keys, the profile's name and the -c items are checked here,
    so a mistake in them stops the chat before it draws anything."""
    env: dict[str, Any] = {}
    for name, names in PEEK_ENV.items():
        found = next((n for n in names if n in os.environ), None)
        if found is not None:
            env[name] = os.environ[found]
    clean = {k: v for k, v in flags.items() if v is not None}
    layers = stack(clean, env, {}, parsed_overrides(overrides))
    data = layers.values

    def pick(name: str, kind: type, default: Any) -> Any:
        value = data.get(name)
        return value if isinstance(value, kind) else default

    keymap = pick("keymap", dict, {})
    return Peek(
        base_url=pick("base_url", str, DEFAULT_BASE_URL).rstrip("/"),
        model=pick("model", str, DEFAULT_MODEL),
        theme=pick("theme", str, DEFAULT_THEME),
        keymap={k: v for k, v in keymap.items() if isinstance(k, str) and isinstance(v, str)},
        has_key=bool(pick("api_key", str, "")),
        mcp_servers=data.get("mcp_servers"),
        profile=layers.profile,
    )


def read_config_document(path: Path) -> Any:
    """The config file as a tomlkit document (empty when there is none): edited in place,
    the user's comments, order and layout stay as they were."""
    import tomlkit

    if not path.exists():
        return tomlkit.document()
    try:
        return tomlkit.parse(read_config_text(path))
    except ConfigError:
        raise
    except (OSError, ValueError) as exc:  # tomlkit's parse errors are ValueErrors
        raise ConfigError(f"cannot update config file {path}: {one_line(str(exc))}") from None


def write_config_document(path: Path, doc: Any) -> None:
    import tomlkit

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it may hold an api_key
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(tomlkit.dumps(doc))
    tmp.replace(path)


def save_setting(name: str, value: Any) -> None:
    """Remember one top-level setting in the config file, keeping everything else in it
    (comments and layout too)."""
    path = config_path()
    doc = read_config_document(path)
    doc[name] = value
    write_config_document(path, doc)
