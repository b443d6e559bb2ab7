"""`[profiles.NAME]` tables: a named set of settings, picked with `-p NAME`,
`profile = "NAME"` in the file, $RIVULET_PROFILE or `-c profile=NAME`.

A profile may hold any setting but another profile, and never a key (`api_key_env`
names the variable that holds it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rivulet.core.config_overrides import secret_problem
from rivulet.core.errors import ConfigError

NOT_IN_PROFILE = frozenset({"profile", "profiles"})


def profile_tables(file: dict[str, Any], path: Path) -> dict[str, dict[str, Any]]:
    """The file's `[profiles.*]` tables (checked to be tables)."""
    tables = file.get("profiles", {})
    if not isinstance(tables, dict) or not all(isinstance(t, dict) for t in tables.values()):
        raise ConfigError(f"bad 'profiles' in config file {path}: each profile is a [profiles.NAME] table")
    return tables


def select_profile(file: dict[str, Any], name: str, path: Path, known: frozenset[str]) -> dict[str, Any]:
    """The settings of profile `name`; an unknown name is one line with the nearest one."""
    import difflib

    from rivulet.core.config_sources import check_keys

    tables = profile_tables(file, path)
    if name not in tables:
        near = difflib.get_close_matches(name, sorted(tables), n=1, cutoff=0.5)
        if near:
            hint = f" (did you mean {near[0]!r}?)"
        elif tables:
            hint = f" (the config file has: {', '.join(sorted(tables))})"
        else:
            hint = f" (config file {path} has no [profiles.NAME] table)"
        raise ConfigError(f"unknown profile {name[:80]!r}{hint}")
    table = tables[name]
    where = f"profile {name!r} in config file {path}"
    check_keys(table, known - NOT_IN_PROFILE, path, where=where)
    for key, value in table.items():
        paths = [[key]] + ([[key, str(h)] for h in value] if key == "headers" and isinstance(value, dict) else [])
        for sub in paths:
            problem = secret_problem(sub)
            if problem is not None:
                raise ConfigError(f"bad {where}: {problem}")
    return table
