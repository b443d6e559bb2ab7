"""`-c key=value` (repeatable): any setting for one run, as Codex does.

The value is TOML (`-c max_retries=2`, `-c 'models=["a","b"]'`, `-c store=true`); what
is not valid TOML is taken as a string, so `-c model=gpt-5` needs no quotes. A dotted
key reaches into a table: `-c headers.X-Team=blue`, `-c query.api-version=2025-04-01`.
A key is never accepted here (nor in a profile): it would sit in the shell's history and
in `ps`; `api_key_env` names the variable that holds it instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rivulet.core.errors import ConfigError

# A key part: a bare TOML key, or a header name (letters, digits, - and _).
_PART = re.compile(r"[A-Za-z0-9_-]+")
# Headers that carry credentials: refused in -c and in profiles, like api_key itself.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "api-key", "x-api-key", "cookie"})
SECRET_HINT = "keys are read from the environment: name the variable with api_key_env (e.g. api_key_env = \"MY_KEY\")"


def secret_problem(path: list[str]) -> str | None:
    """Why a value at this dotted path must not be given here, or None."""
    if path[0] == "api_key":
        return f"api_key is refused here: {SECRET_HINT}"
    if path[0] == "headers" and len(path) > 1 and path[1].lower() in SECRET_HEADERS:
        return f"the {path[1]} header is refused here: {SECRET_HINT}"
    return None


def parse_value(raw: str) -> Any:
    import datetime  # here: peek (the first frame) parses no -c item in most starts
    import tomllib

    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw.strip()
    # A bare 2025-04-01 is a TOML date; no setting takes one, and api-version is such a string.
    return raw.strip() if isinstance(value, (datetime.date, datetime.time)) else value


def parse_overrides(items: Iterable[str], known: frozenset[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The `-c` values as nested tables, and each top-level key's label ("-c model") for
    error lines. A bad item is a one-line ConfigError naming its key, never its value
    (it may be a secret typed in the wrong place)."""
    out: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        path = key.split(".")
        if not sep or not key:
            raise ConfigError(f"bad -c {key or '(empty)'}: expected KEY=VALUE, e.g. -c model=gpt-5.1")
        if not all(_PART.fullmatch(p) for p in path):
            raise ConfigError(f"bad -c key {key[:80]!r}: use letters, digits, - and _, with dots between tables")
        if path[0] not in known:
            import difflib  # only for the hint: it costs a few ms to import

            near = difflib.get_close_matches(path[0], sorted(known), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ConfigError(f"unknown setting {path[0]!r} in -c {key}{hint}")
        problem = secret_problem(path)
        if problem is not None:
            raise ConfigError(f"bad -c {key}: {problem}")
        table = out
        for part in path[:-1]:
            inner = table.get(part)
            if not isinstance(inner, dict):
                inner = table[part] = {}
            table = inner
        table[path[-1]] = parse_value(raw)
        labels[path[0]] = f"-c {path[0]}"
    return out, labels
