"""When the chat runs as plain lines instead of the full screen: asked for (--plain,
`plain = true` in the config, $RIVULET_PLAIN), or a terminal that cannot hold a full
screen (TERM=dumb) or no terminal on stdout. Light: decided before anything heavy loads."""

from __future__ import annotations

import argparse
import os
import sys

from rivulet.core.errors import ConfigError


def wants_plain(args: argparse.Namespace) -> bool:
    """--plain, `plain = true` (config or $RIVULET_PLAIN), TERM=dumb, or no terminal on
    stdout: only the chat and `resume` (exec and the other commands print as they did)."""
    if args.plain:
        return True
    if os.environ.get("TERM") == "dumb" or not sys.stdout.isatty():
        return True
    env = os.environ.get("RIVULET_PLAIN", "").strip().lower()
    if env:
        return env in ("1", "true", "yes", "on")
    from rivulet.core.config_sources import config_path, read_config_file

    try:
        return read_config_file(config_path()).get("plain") is True
    except ConfigError:
        return False  # the chat's own start says what is wrong with the file
