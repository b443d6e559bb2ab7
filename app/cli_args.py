"""One complete namespace for every command."""

from __future__ import annotations

import argparse

# What some commands' parsers define and code shared by every command reads (app/boot.py's
# settings_for, the launch): each parsed namespace gets the ones its command lacks, so no
# reader probes for an attribute (a getattr skipping what is missing hides a typo).
SHARED = {"continue_last": False, "overrides": None, "overrides_after": None, "patch_tool": None, "strict": None,
          "profile": None, "background": None, "instructions": None, "image": None, "model": None,
          "print_on_exit": False, "no_store": False, "refresh": False, "report": False, "ephemeral": False,
          "plain": False}


def complete(args: argparse.Namespace) -> argparse.Namespace:
    """`args` with every shared attribute its command's parser did not set (their defaults)."""
    for name, value in SHARED.items():
        vars(args).setdefault(name, value)
    return args
