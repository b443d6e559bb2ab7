"""The command the user started rivulet with, for hints ("To resume this session: …"):
a hint that says `rivulet resume …` is no help to someone without `rivulet` on PATH.

- `scripts/run` sets RIVULET_COMMAND to the path it was called by (issue 25);
- `python -m rivulet.app` is said back with the interpreter as it was typed;
- the `rivulet` program: `rivulet` when that name on PATH is this program, else the path
  it was started by (`.venv/bin/rivulet`);
- anything else (rivulet run inside another program, the tests): `rivulet`.

Standard library only: core's messages use it too (core never imports app).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence

PROGRAM = "rivulet"


def command_name() -> str:
    """This process's name for itself, quoted for a shell."""
    return started_as(os.environ.get("RIVULET_COMMAND", ""), sys.orig_argv, sys.argv[0] if sys.argv else "",
                      shutil.which)


def started_as(told: str, orig_argv: Sequence[str], argv0: str, which: Callable[[str], str | None]) -> str:
    """`told`: RIVULET_COMMAND; `orig_argv`: the interpreter's own command line
    (sys.orig_argv); `argv0`: the script's (sys.argv[0]); `which`: shutil.which."""
    if told.strip():
        return shlex.quote(told.strip())
    module = _module(orig_argv)
    if module is not None and (module == PROGRAM or module.startswith(PROGRAM + ".")):
        return f"{shlex.quote(orig_argv[0])} -m {module}"
    if os.path.basename(argv0) == PROGRAM:
        found = which(PROGRAM)
        try:
            if found is not None and os.path.samefile(found, argv0):
                return PROGRAM
        except OSError:
            pass  # argv0 is gone or was never a file: its path is still how it was started
        return shlex.quote(argv0)
    return PROGRAM


def _module(orig_argv: Sequence[str]) -> str | None:
    """The module of `python [options] -m MODULE …` (or `-mMODULE`), else None."""
    args = list(orig_argv[1:])
    n = 0
    while n < len(args):
        arg = args[n]
        if arg == "-m":
            return args[n + 1] if n + 1 < len(args) else None
        if arg.startswith("-m") and not arg.startswith("--"):
            return arg[2:]
        if arg == "-c" or not arg.startswith("-"):
            return None  # a command or a script: what follows is its arguments
        n += 2 if arg in ("-W", "-X") else 1  # the two options that take a separate value
    return None
