"""`[mcp_servers.NAME]` tables of config.toml: what each MCP server is and how to reach it.

A stdio server names a `command` (with `args`, `env`, `cwd`); a streamable-HTTP server a
`url` (with `headers` and `bearer_token_env`, the name of the environment variable that
holds its token, so the token itself never sits in the file). Every server also takes
`enabled`, `startup_timeout`, `tool_timeout`, `enabled_tools` / `disabled_tools` and
`network` (a sandboxed stdio server may reach the network only when this is true).
A bad entry is one `ConfigError` line naming the server and the key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rivulet.core.config_sources import config_path, read_config_document, write_config_document
from rivulet.core.errors import ConfigError, register_secret

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_STDIO_KEYS = {"command", "args", "env", "cwd"}
_HTTP_KEYS = {"url", "headers", "bearer_token_env"}
_COMMON_KEYS = {"enabled", "startup_timeout", "tool_timeout", "enabled_tools", "disabled_tools", "network"}


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    command: str | None = None  # stdio
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None  # streamable HTTP
    headers: dict[str, str] = field(default_factory=dict)
    bearer_token_env: str | None = None
    enabled: bool = True
    startup_timeout: float = 10.0
    tool_timeout: float = 60.0
    enabled_tools: tuple[str, ...] | None = None  # None: every tool the server lists
    disabled_tools: tuple[str, ...] = ()
    network: bool = False  # in the sandbox: may this stdio server reach the network?

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"

    def offers(self, tool: str) -> bool:
        if self.enabled_tools is not None and tool not in self.enabled_tools:
            return False
        return tool not in self.disabled_tools

    def auth_headers(self) -> dict[str, str]:
        """The HTTP headers, with the bearer token read from its environment variable."""
        headers = dict(self.headers)
        if self.bearer_token_env:
            token = os.environ.get(self.bearer_token_env)
            if not token:
                raise ConfigError(f"mcp_servers.{self.name}: environment variable {self.bearer_token_env} "
                                  "(bearer_token_env) is not set")
            register_secret(token)  # masked in every error and log line from now on
            headers["Authorization"] = f"Bearer {token}"
        return headers


def _bad(name: str, key: str, why: str) -> ConfigError:
    return ConfigError(f"bad setting 'mcp_servers.{name}.{key}': {why} (config file: {config_path()})")


def _str(name: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise _bad(name, key, "must be a non-empty string")
    return value


def _str_list(name: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(name, key, "must be a list of strings")
    return tuple(value)


def _str_table(name: str, key: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _bad(name, key, "must be a table of strings")
    return {str(k): v for k, v in value.items()}


def _seconds(name: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86_400:
        raise _bad(name, key, "must be a number of seconds, above 0")
    return float(value)


def parse_server(name: str, raw: Any) -> McpServerConfig:
    """One `[mcp_servers.NAME]` table, checked."""
    if not _NAME.match(name):
        raise _bad(name, "", "a server name is 1 to 40 letters, digits, '_' or '-'")
    if not isinstance(raw, dict):
        raise _bad(name, "", "must be a table")
    unknown = sorted(set(raw) - _STDIO_KEYS - _HTTP_KEYS - _COMMON_KEYS)
    if unknown:
        raise _bad(name, unknown[0], "unknown key")
    if ("command" in raw) == ("url" in raw):
        raise _bad(name, "command", "give either `command` (a stdio server) or `url` (streamable HTTP), not both")
    kind, other = (_STDIO_KEYS, _HTTP_KEYS) if "command" in raw else (_HTTP_KEYS, _STDIO_KEYS)
    wrong = sorted(set(raw) & other)
    if wrong:
        raise _bad(name, wrong[0], f"does not apply to a {'stdio' if kind is _STDIO_KEYS else 'streamable-HTTP'} "
                                   "server")
    kw: dict[str, Any] = {}
    if "command" in raw:
        kw["command"] = _str(name, "command", raw["command"])
        kw["args"] = _str_list(name, "args", raw.get("args", []))
        kw["env"] = _str_table(name, "env", raw.get("env", {}))
        if "cwd" in raw:
            kw["cwd"] = _str(name, "cwd", raw["cwd"])
    else:
        url = _str(name, "url", raw["url"])
        if not re.match(r"^https?://[^/\s]+", url):
            raise _bad(name, "url", "must be an http(s) URL")
        kw["url"] = url
        kw["headers"] = _str_table(name, "headers", raw.get("headers", {}))
        if "bearer_token_env" in raw:
            kw["bearer_token_env"] = _str(name, "bearer_token_env", raw["bearer_token_env"])
    for key in ("enabled", "network"):
        if key in raw:
            if not isinstance(raw[key], bool):
                raise _bad(name, key, "must be true or false")
            kw[key] = raw[key]
    for key in ("startup_timeout", "tool_timeout"):
        if key in raw:
            kw[key] = _seconds(name, key, raw[key])
    if "enabled_tools" in raw:
        kw["enabled_tools"] = _str_list(name, "enabled_tools", raw["enabled_tools"])
    if "disabled_tools" in raw:
        kw["disabled_tools"] = _str_list(name, "disabled_tools", raw["disabled_tools"])
    return McpServerConfig(name=name, **kw)


def parse_servers(raw: Any) -> list[McpServerConfig]:
    """Every server of the `mcp_servers` table, in file order (disabled ones included)."""
    if raw is None:
        return []
    if not isinstance(raw, dict):
        raise ConfigError(f"bad setting 'mcp_servers': must be a table of servers (config file: {config_path()})")
    return [parse_server(str(name), value) for name, value in raw.items()]


# ---- editing the file (for `rivulet mcp add/remove`) ------------------------------------
# tomlkit edits the document in place: the user's comments, order and layout stay as they were.

def _as_toml(table: dict[str, Any]) -> Any:
    """A server's table; its env and headers as inline tables (one line each)."""
    import tomlkit

    out = tomlkit.table()
    for key, value in table.items():
        if isinstance(value, dict):
            inline = tomlkit.inline_table()
            inline.update(value)
            value = inline
        out[key] = value
    return out


def add_server(name: str, table: dict[str, Any], path: Path | None = None) -> McpServerConfig:
    """Add or replace `[mcp_servers.NAME]`, keeping every other setting of the file.
    The table is checked first: a bad one changes nothing."""
    import tomlkit

    server = parse_server(name, table)
    path = path or config_path()
    doc = read_config_document(path)
    if "mcp_servers" not in doc:
        doc["mcp_servers"] = tomlkit.table(is_super_table=True)  # no bare [mcp_servers] header
    servers = doc["mcp_servers"]
    if not isinstance(servers, dict):
        raise ConfigError(f"cannot update config file {path}: mcp_servers is not a table")
    if name in servers:
        del servers[name]
    servers[name] = _as_toml(table)
    write_config_document(path, doc)
    return server


def remove_server(name: str, path: Path | None = None) -> bool:
    """Remove `[mcp_servers.NAME]`; False when there was none (the file is left as it was)."""
    path = path or config_path()
    doc = read_config_document(path)
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    if not servers:
        del doc["mcp_servers"]
    write_config_document(path, doc)
    return True
