"""`[[hooks]]` tables: what each one runs, and on which event.

The user's config file may hold hooks; a workspace may ship `.rivulet/hooks.toml`, read
only when the user listed that workspace in `trusted_workspaces` (a repository must not
be able to run code on the user's machine by shipping a file). Bad tables are one-line
ConfigErrors naming the hook.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec

from rivulet.core.errors import ConfigError

EVENTS = ("session_start", "turn_start", "before_tool", "after_tool", "after_patch", "turn_end", "session_end")
WORKSPACE_HOOKS = Path(".rivulet") / "hooks.toml"
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 3600.0


class HookSpec(msgspec.Struct, frozen=True, dict=True):
    event: str
    command: tuple[str, ...]  # argv; an item "{files}" becomes one item per file
    timeout: float = DEFAULT_TIMEOUT
    tools: tuple[str, ...] = ()  # before_tool/after_tool: only these tool names (empty: all)
    source: str = "config"  # where it was defined, for the notes

    @property
    def label(self) -> str:
        return " ".join(self.command)[:60]


def parse_hooks(raw: Any, source: str) -> list[HookSpec]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ConfigError(f"bad hooks in {source}: write each one as a [[hooks]] table")
    return [_parse_one(entry, n, source) for n, entry in enumerate(raw, 1)]


def _parse_one(entry: Any, n: int, source: str) -> HookSpec:
    where = f"hook {n} in {source}"
    if not isinstance(entry, dict):
        raise ConfigError(f"bad {where}: a [[hooks]] table is expected")
    unknown = set(entry) - {"event", "command", "timeout", "tools"}
    if unknown:
        raise ConfigError(f"bad {where}: unknown key {sorted(unknown)[0]!r} (event, command, timeout, tools)")
    event = entry.get("event")
    if event not in EVENTS:
        raise ConfigError(f"bad {where}: event {event!r} is not one of {', '.join(EVENTS)}")
    command = entry.get("command")
    if isinstance(command, str):  # one word or a script path; no shell parsing of a string
        command = [command]
    if not isinstance(command, list) or not command or not all(isinstance(a, str) and a for a in command):
        raise ConfigError(f"bad {where}: command must be a list of strings, e.g. [\"ruff\", \"format\", \"{{files}}\"]")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT:
        raise ConfigError(f"bad {where}: timeout must be a number of seconds above 0, at most {MAX_TIMEOUT:g}")
    tools = entry.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise ConfigError(f"bad {where}: tools must be a list of tool names")
    return HookSpec(event, tuple(command), float(timeout), tuple(tools), source)


def is_trusted(workspace: Path, trusted: list[str] | tuple[str, ...]) -> bool:
    real = os.path.realpath(workspace)
    return any(os.path.realpath(os.path.expanduser(t)) == real for t in trusted if t)


class LoadedHooks(msgspec.Struct, dict=True):
    hooks: list[HookSpec]
    ignored: str | None = None  # why the workspace's own hooks were not loaded


def load_hooks(user_hooks: Any, workspace: Path, trusted: list[str] | tuple[str, ...]) -> LoadedHooks:
    """The user's hooks, then the workspace's when it is trusted. The workspace file is
    not even parsed when it is not: its content is the repository's, as hostile as the model."""
    from rivulet.core.config_sources import read_config_file

    hooks = parse_hooks(user_hooks, "the config file")
    path = workspace / WORKSPACE_HOOKS
    if not os.path.lexists(path):
        return LoadedHooks(hooks)
    if not is_trusted(workspace, trusted):
        return LoadedHooks(hooks, f"{WORKSPACE_HOOKS} ignored: this workspace is not trusted (add it to "
                                  "trusted_workspaces in your config to run its hooks)")
    data = read_config_file(path)  # bounded, a regular file only
    unknown = set(data) - {"hooks"}
    if unknown:
        raise ConfigError(f"unknown key {sorted(unknown)[0]!r} in {path} (only [[hooks]] tables)")
    return LoadedHooks(hooks + parse_hooks(data.get("hooks"), str(path)))
