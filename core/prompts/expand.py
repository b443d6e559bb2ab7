"""A saved prompt's arguments: `$ARGUMENTS` is everything typed after `/NAME`, `$1` to
`$9` its words (shell-style quoting: `"two words"` is one), `$$` a dollar sign. A
placeholder with no argument is left empty."""

from __future__ import annotations

import re
import shlex

_PLACEHOLDER = re.compile(r"\$(\$|ARGUMENTS|[1-9])")


def words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unclosed quote: words as typed
        return args.split()


def expand(body: str, args: str) -> str:
    positional = words(args)

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "$":
            return "$"
        if key == "ARGUMENTS":
            return args
        n = int(key)
        return positional[n - 1] if n <= len(positional) else ""

    return _PLACEHOLDER.sub(one, body)
