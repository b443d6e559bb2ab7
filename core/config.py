"""Settings: defaults < provider preset < config file (TOML) < profile < environment <
`-c key=value` < flags.

`layered` gathers the sources (`config_sources.stack`) and pydantic validates the result:
`Settings` is a pydantic model, the one place a setting is declared (its type, default,
bounds, environment names and description, from which the configuration reference is
made). The layering is ours, not pydantic-settings': its sources have no place for
profiles, provider presets, `-c` items or where each value came from (the error line
names it), and the chat's first frame reads the same layers without pydantic
(`config_sources.peek`). The API key is a `SecretStr` so it never shows in a repr, a dump,
a log line or an error. What needs no validation (the file, its path, the layering, safe
URLs) is in `config_sources.py`, re-exported here.
"""

from __future__ import annotations

import json
import os
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
)

from rivulet.core.config_sources import (
    API_KEY_ENV,
    BASE_URL_ENV,
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    DEFAULT_THEME,
    Layers,
    config_path,
    parsed_overrides,
    stack,
)
from rivulet.core.config_sources import read_config_document as read_config_document
from rivulet.core.config_sources import save_setting as save_setting
from rivulet.core.config_sources import sessions_dir as sessions_dir
from rivulet.core.config_sources import write_config_document as write_config_document
from rivulet.core.errors import ConfigError, register_secret
from rivulet.core.server_endpoint import ServerEndpoint

ENV_PREFIX = "RIVULET_"

_SANDBOXES = Literal["workspace-write", "read-only", "off"]


class Settings(BaseModel):
    """Built from every source: `Settings(model="m")` is that flag over the environment
    over the config file over the defaults (see `layered`). A bad value raises pydantic's
    ValidationError; `load_settings` makes it one line naming where the value came from.
    Each field's description is what a user reads about it (the configuration reference)."""

    model_config = ConfigDict(extra="ignore")
    # Where each value came from, what the user set, and what the capability cache applied
    # (setting -> why): see config_sources.Layers and core/capabilities.py.
    _origin: dict[str, str] = PrivateAttr(default_factory=dict)
    _explicit: frozenset[str] = PrivateAttr(default=frozenset())
    _applied: dict[str, str] = PrivateAttr(default_factory=dict)

    # -- the server -------------------------------------------------------------------------
    api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("api_key", *API_KEY_ENV),
        description="The key sent to the server (see `auth`); needed for any server but one on this "
                    "machine. Never logged or printed.")
    base_url: str = Field(
        DEFAULT_BASE_URL, validation_alias=AliasChoices("base_url", *BASE_URL_ENV),
        description="The server: requests go to `{base_url}/responses`.")
    model: str = Field(DEFAULT_MODEL, description="The model each request names.")
    instructions: str | None = Field(None, description="System instructions, sent after the AGENTS.md files.")
    headers: dict[str, str] = Field(
        default_factory=dict, description="Extra HTTP headers sent with every request (a table; e.g. an "
                                          "organisation or project id).")
    provider: Literal["openai", "azure", "openrouter", "llamacpp", "vllm", "ollama", "lmstudio", "custom"] | None \
        = Field(None, description="A provider preset beneath these settings: `openai`, `azure`, `openrouter`, "
                                  "`llamacpp`, `vllm`, `ollama`, `lmstudio`, `custom` (see Servers).")
    auth: Literal["bearer", "api-key", "none"] = Field(
        "bearer", description="How the key is sent: `bearer` (`Authorization: Bearer`), `api-key` (an "
                              "`api-key` header, Azure's), `none`.")
    api_key_env: str | None = Field(
        None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="The environment variable the key is read from instead of `$OPENAI_API_KEY` (then only "
                    "from it: OpenAI's key never goes to another provider). A key never lives in a profile "
                    "or on the command line.")
    probe_servers: bool = Field(
        True, description="The first time the chat talks to a local server (never a paid provider's), probe "
                          "it in the background and remember what it supports; what you set always wins.")
    query: dict[str, str] = Field(
        default_factory=dict, description="Query parameters added to every request's URL (a table; Azure's "
                                          "`api-version`).")
    profile: str | None = Field(None, description="The active `[profiles.NAME]` table; also `-p NAME`.")
    profiles: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="The `[profiles.NAME]` tables, each a set of these settings "
                                          "(never a key, nor another profile).")
    allow_insecure_http: bool = Field(
        False, description="Send the API key over plain `http://` to a host that is not this machine "
                           "(otherwise refused).")
    # -- requests and the stream ------------------------------------------------------------
    idle_timeout: float = Field(  # Codex uses 300 too
        300.0, description="Seconds without a complete event before the stream counts as dead (SSE comments, "
                           "bytes that complete no event and WebSocket pings and pongs do not count).")
    connect_timeout: float = Field(15.0, description="Seconds to wait for a connection to the server.")
    reasoning_effort: Literal["minimal", "low", "medium", "high", "xhigh", "none"] | None = Field(
        None, description="The reasoning effort asked for: `minimal` … `xhigh`, or `none`; `/effort` changes "
                          "it for the conversation. Unset: the server's default.")
    reasoning_summary: Literal["auto", "concise", "detailed", "off"] | None = Field(
        "auto", description="The reasoning summaries asked for; `off` sends no reasoning block (for models "
                            "that do not reason).")
    store: bool = Field(
        False, description="Ask the server to store responses; with `false`, reasoning round-trips as "
                           "`encrypted_content`.")
    max_follow_ups: int = Field(
        16, ge=0, description="Requests per turn (after tool calls) before rivulet stops and says so.")
    max_retries: int = Field(
        4, ge=0, description="Retries of one request after a retryable error (a cut stream, a 5xx, a rate "
                             "limit with a delay).")
    max_retry_wait: float = Field(
        60.0, ge=0, description="The longest `Retry-After` (seconds or an HTTP date) rivulet waits out; a "
                                "server that asks for more gets its error shown at once, not retried.")
    strict_protocol: bool = Field(
        False, description="Every tolerated protocol deviation becomes an error (for people who develop "
                           "servers); also `--strict`.")
    max_items_per_response: int = Field(
        10_000, ge=1, description="Output items one response may have; past it the turn stops with a clear "
                                  "error, keeping what was committed.")
    max_item_chars: int = Field(
        16_000_000, ge=1,
        description="Characters one item may stream (all its deltas); 4× this in bytes (at least 1 MiB) caps "
                    "one SSE event, one WebSocket message and one JSON answer, after decompression. An error "
                    "body is kept to 1 MiB. Past a cap: one error line, what was committed kept.")
    transport: Literal["sse", "ws", "auto"] = Field(
        "auto", description="`sse`, `ws` (the Responses WebSocket, falling back to SSE), `auto` (the WebSocket "
                            "where the provider has it, SSE elsewhere); also `--transport`.")
    ws_incremental: bool = Field(
        True, description="Over the WebSocket, send only the new items with `previous_response_id` when the "
                          "rest is unchanged.")
    # -- the chat ---------------------------------------------------------------------------
    theme: str = Field(DEFAULT_THEME, description="The colour theme; saved when you switch (`/theme`, the palette).")
    keymap: dict[str, str] = Field(
        default_factory=dict, description="Binding id → keys, comma-separated (a table, e.g. "
                                          "`\"composer.submit\" = \"ctrl+s\"`; see The chat UI).")
    notify: Literal["auto", "bell", "osc9", "osc777", "off"] = Field(
        "auto", description="When a turn ends or an approval waits while the terminal is unfocused: `auto` "
                            "(OSC 9 where the terminal is known to show it, else the bell), `bell`, `osc9`, "
                            "`osc777`, `off`.")
    stream_fps: float = Field(  # each commit costs a layout pass: 30 costs about half of 60
        30.0, ge=5, le=120,
        description="How many times a second streaming text is put on the screen (5–120). Each update "
                    "re-renders the live text: 60 is smoother and costs ~10 % more CPU, 20 is Codex's rate.")
    print_on_exit: bool = Field(
        False, description="On quit, write the conversation (reasoning and tool output in full) to the "
                           "terminal's normal scrollback; `--print` does it for one run.")
    exit_recap_turns: int = Field(
        5, ge=0, description="On quitting the full-screen chat, the last this-many turns (prompts and "
                             "answers, as plain text) are written to the terminal's scrollback above the "
                             "resume hint, with a line saying how to see the rest; 0: none. "
                             "`print_on_exit` writes all of it instead.")
    plain: bool = Field(
        False, description="The chat as plain lines (see Plain mode); also `--plain`, and automatic with "
                           "`TERM=dumb` or stdout not a terminal.")
    prompts_dir: str | None = Field(
        None, description="Where your saved prompts (`NAME.md` → `/NAME`) live. Unset: `prompts/` beside "
                          "the config file.")
    models: list[str] = Field(
        default_factory=list, description="Models `/model` offers when the server cannot list its own "
                                          "(`GET {base_url}/models`).")
    # -- the context ------------------------------------------------------------------------
    project_instructions_max_bytes: int = Field(
        32 * 1024, ge=0, description="Bytes of AGENTS.md files (repository root down to the workspace) sent "
                                     "as instructions before `instructions`; 0 reads none.")
    context_window: int | None = Field(
        None, gt=0, description="The model's context window in tokens, when the built-in table or the server "
                                "is wrong (the status line's context left, automatic compaction).")
    auto_compact_percent: int = Field(
        90, ge=0, le=100, description="Compact the history before a turn once the context is this percent "
                                      "full (0: never).")
    compaction: Literal["auto", "server", "summary"] = Field(
        "auto", description="How `/compact` and automatic compaction work: `server` (`POST "
                            "/responses/compact`), `summary` (the model summarises older turns), `auto` "
                            "(server on api.openai.com, summary elsewhere).")
    compact_keep_turns: int = Field(
        2, ge=0, description="The newest turns a summary compaction keeps word for word after the summary "
                             "(with no more turns than that, all but the newest are summarised; 0: none kept).")
    attach_max_bytes: int = Field(256 * 1024, ge=1, description="The largest text file `@path` may attach, in bytes.")
    image_max_bytes: int = Field(
        8 * 1024 * 1024, ge=1, description="The largest image `@path` or `--image` may attach, in bytes.")
    save_sessions: bool = Field(
        True, description="Keep every conversation in a session file (resume, inspect, export).")
    # -- tools ------------------------------------------------------------------------------
    approval: Literal["ask", "auto-edit", "auto", "never-ask"] = Field(
        "ask", description="`ask` (every command and patch asks), `auto-edit` (patches inside the workspace "
                           "run without asking), `auto` (auto-edit, and commands inside the sandbox run "
                           "without asking), `never-ask` (sandboxes, CI); `/approval` changes it for the run.")
    workspace: str | None = Field(
        None, description="Where tools read, write and run. Unset: the directory rivulet started in.")
    patch_tool: Literal["auto", "custom", "function", "off"] = Field(
        "auto", description="`auto` (the custom grammar tool on OpenAI's API, the JSON function elsewhere: "
                            "llama.cpp silently drops custom tools, gpt-oss refuses them), `custom`, "
                            "`function`, `off` (no patch tool).")
    shell_tool: bool = Field(True, description="Offer the `shell` tool.")
    subagents: bool = Field(
        True, description="Offer the `spawn_agent` tool: the model hands a task to a subagent, a conversation "
                          "of its own that starts from the task; several run at once.")
    max_subagents: int = Field(4, ge=1, description="Subagents that run at once; more calls wait for a place.")
    subagent_depth: int = Field(
        1, ge=0, description="How deep subagents nest: 1, the conversation's subagents get no `spawn_agent` "
                             "of their own; 0 is as `subagents = false`.")
    shell_timeout: float = Field(
        120.0, gt=0, description="Seconds before a command is killed (the model may ask for less, or up to "
                                 "10× more).")
    sandbox: _SANDBOXES = Field(
        "workspace-write", description="The shell tool's bubblewrap sandbox: `workspace-write`, `read-only`, "
                                       "`off` (see Security model); `/sandbox` changes it for the run.")
    sandbox_network: bool = Field(False, description="Let sandboxed commands reach the network.")
    max_tool_args_chars: int = Field(
        4_000_000, ge=1, description="A tool call with longer arguments, in characters, is refused (an "
                                     "error the model sees).")
    max_patch_chars: int = Field(
        4_000_000, ge=1, description="A longer patch, in characters, is refused and nothing is written.")
    protected_paths: list[str] | None = Field(
        None, description="Glob patterns: a patch touching one always asks, even under auto-edit (a list; "
                          "replaces the default list, see Security model).")
    checkpoints: bool = Field(
        True, description="A checkpoint of the workspace per turn that runs a tool, for `/undo`, `/redo`, "
                          "rewinds with files and `rivulet undo` (see Undo).")
    checkpoint_keep: int = Field(100, ge=1, description="Checkpoints kept per workspace (the oldest go first).")
    checkpoint_max_mb: float = Field(
        1024, gt=0, description="Content kept per workspace, in MB; past it the oldest checkpoints go.")
    checkpoint_file_max_mb: float = Field(
        8, gt=0, description="A larger file (MB) is not kept: its change cannot be undone, and the turn "
                             "says so.")
    checkpoint_turn_max_mb: float = Field(
        256, gt=0, description="New content one checkpoint may keep, in MB; files past it are not kept "
                               "(and the turn says so).")
    mcp_servers: dict[str, Any] = Field(
        # checked by core/tools/mcp_config.py
        default_factory=dict, description="MCP servers, `[mcp_servers.NAME]` tables (see MCP servers).")
    hooks: list[Any] = Field(
        # checked by core/hooks/spec.py
        default_factory=list, description="`[[hooks]]` tables: your commands at set points (event, command, "
                                          "timeout, tools; see Hooks).")
    hooks_sandbox: _SANDBOXES | None = Field(
        None, description="The sandbox hooks run in: `workspace-write`, `read-only`, `off` (for a hook that "
                          "needs the desktop). Unset: the `sandbox` setting.")
    trusted_workspaces: list[str] = Field(
        default_factory=list, description="Workspaces whose own `.rivulet/hooks.toml` runs (a repository is "
                                          "as hostile as the model).")
    # -- the Responses API's own features (README "Hosted tools, background responses, cost") --
    background: bool = Field(
        False, description="Send requests with `background: true` and `store: true` (also `--background`, "
                           "`/background`): a cut stream resumes from its last `sequence_number`, a quit "
                           "leaves the response running for `rivulet resume`, Esc cancels it on the server.")
    hosted_tools: list[Any] = Field(
        default_factory=list,
        description="The API's own tools offered to the model: a name (`web_search`, `code_interpreter` with "
                    "`container: auto`, `image_generation` with two partial images) or the API's tool object "
                    "(`file_search` needs `vector_store_ids`, `mcp` needs `server_label` and `server_url`; "
                    "any documented option is passed as written); `/tools` switches them for the "
                    "conversation.")
    verbosity: Literal["low", "medium", "high"] | None = Field(
        None, description="`text.verbosity`: `low`, `medium`, `high`; `/verbosity` for the run. Unset: not sent.")
    service_tier: Literal["auto", "default", "flex", "priority", "scale"] | None = Field(
        None, description="`auto`, `default`, `flex`, `priority`, `scale`; `/tier` for the run. Unset: not sent.")
    prompt_cache_key: str | None = Field(
        "session", description="`session`: one key per conversation (the session's id), so its requests share "
                               "the server's prompt cache; any other text is sent as it is; `off` sends none.")
    truncation: Literal["auto", "disabled"] | None = Field(
        None, description="`auto` lets the server drop old input that does not fit; `disabled` fails instead. "
                          "Unset: not sent.")
    max_output_tokens: int | None = Field(
        None, gt=0, description="The output cap of each request (an answer cut by it is kept, and said so). "
                                "Unset: not sent.")
    prices: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Dollars per million tokens by model-name prefix, over the shipped list prices "
                    "(core/turn/prices.py): `[prices.my-model] input = 1.0, cached = 0.1, output = 4.0`.")

    @field_validator("hosted_tools")
    @classmethod
    def _check_hosted_tools(cls, value: list[Any]) -> list[Any]:
        from rivulet.core.hosted_tools import normalise  # checked once here

        normalise(value)
        return value

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        ServerEndpoint.of_base_url(value)  # an http(s) URL with a host and a port that is a number
        return value.rstrip("/")

    def __init__(self, _layers: Layers | None = None, **values: Any) -> None:
        layers = _layers if _layers is not None else layered(values)
        super().__init__(**layers.values)
        self._origin, self._explicit = layers.origin, layers.explicit

    def model_post_init(self, context: Any) -> None:
        # From now on the key is masked by value in every error, log line and toast.
        if self.api_key is not None:
            register_secret(self.api_key.get_secret_value())

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

    @property
    def endpoint(self) -> ServerEndpoint:
        """The base URL taken apart: its host, whether it is this machine, the URL of an
        endpoint below it, the form that may be shown (core/server_endpoint.py)."""
        return ServerEndpoint.parse(self.base_url)

    def insecure_key_problem(self) -> str | None:
        """Why the key must not be sent to base_url (plain http to another machine), or None."""
        if self.api_key is None or not self.api_key.get_secret_value() or self.allow_insecure_http:
            return None
        endpoint = self.endpoint
        if endpoint.scheme == "http" and not endpoint.is_loopback:
            return (f"refusing to send the API key over plain http to {endpoint.safe}: use https, "
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


def env_names(name: str) -> tuple[str, ...]:
    """The environment variables a setting is read from: its aliases' upper-case names,
    else RIVULET_<NAME>."""
    alias = Settings.model_fields[name].validation_alias
    choices = alias.choices if isinstance(alias, AliasChoices) else ()
    names = tuple(n for n in choices if isinstance(n, str) and n.isupper())
    return names or (ENV_PREFIX + name.upper(),)


def _by_name(values: dict[str, Any]) -> dict[str, Any]:
    """Keys given as a field's name or one of its aliases, as field names."""
    fields = Settings.model_fields
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in fields:
            out[key] = value
            continue
        for name, info in fields.items():
            if isinstance(info.validation_alias, AliasChoices) and key in info.validation_alias.choices:
                out[name] = value
                break
    return out


def _from_env() -> tuple[dict[str, Any], dict[str, str]]:
    """Every setting found in the environment (names compared without case, as
    pydantic-settings does), and the variable each came from; a dict or list setting is
    JSON there."""
    environ = {k.upper(): v for k, v in os.environ.items()}
    out: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for name, info in Settings.model_fields.items():
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
    return "custom" if settings.endpoint.host == "api.openai.com" else "function"


def load_settings(*, overrides: tuple[str, ...] | list[str] = (), **flags: Any) -> Settings:
    """Settings from every source, with a one-line ConfigError on bad input that names
    where the bad value came from: a flag, a -c item, an environment variable, a profile
    or the config file. `overrides` are the `-c key=value` items."""
    clean = {k: v for k, v in flags.items() if v is not None}
    path = config_path()
    layers = layered(clean, overrides)
    try:
        settings = Settings(layers)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first.get("loc", ())]
        field = loc[0] if loc else ""
        message = str(first.get("msg", "")).removeprefix("Value error, ")
        where = layers.origin.get(field) or source_of(field, clean)
        inner = f"{'.'.join(loc)}: " if len(loc) > 1 else ""  # which entry of a table
        raise ConfigError(f"bad {where}: {inner}{message}") from None
    except (OSError, ValueError) as exc:  # an unreadable config file
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    problem = settings.insecure_key_problem() or _preset_problem(settings)
    if problem is not None:
        raise ConfigError(problem)
    return settings


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
    names = env_names(field) if field in Settings.model_fields else (f"RIVULET_{field.upper()}",)
    for name in names:
        if name in os.environ:
            return f"${name}"
    return f"{field!r} in config file {config_path()}"

