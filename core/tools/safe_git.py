"""The one way rivulet runs git itself: so that a hostile repository runs no code.

A repository's own configuration is written by whoever made the repository: a cloned
project, an unpacked archive, or a sandboxed command (`git config core.fsmonitor
"<payload>"`). A `.git` that is a file (`gitdir: elsewhere`) points git at a
configuration anywhere. git runs programs named there: the fsmonitor hook, hooks, an
external diff, textconv and filter drivers, `core.sshCommand`, a pager, an editor.
rivulet's git runs outside the sandbox, as the user, so every such key is overridden
on the command line (which wins over every file), the system and global files are not
read at all, and the environment git would take commands from is cleared.

Only commands that run no filter driver are allowed (git has no switch that turns every
`filter.<driver>` off, and `git diff` of a work-tree file runs the clean filter):
`ls-files` and `rev-parse`. Anything else raises: read what it needs without git.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# Each of these names a program git would start, or decides which one: all off.
OVERRIDES = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.sshCommand=false",
    "core.gitProxy=",
    "core.pager=cat",
    "core.editor=false",
    "core.askPass=",
    "core.alternateRefsCommand=",
    "credential.helper=",
    "diff.external=",
    "sequence.editor=false",
    "protocol.allow=never",
    "uploadpack.packObjectsHook=",
    "core.untrackedCache=false",
)
SAFE_COMMANDS = frozenset({"ls-files", "rev-parse"})


def git_env() -> dict[str, str]:
    """The environment for rivulet's git: none of the caller's GIT_* variables (they
    can name programs and directories), no system or global configuration, no prompt."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="",
               GIT_NO_REPLACE_OBJECTS="1", GIT_ATTR_NOSYSTEM="1", GIT_PROTOCOL_FROM_USER="0")
    return env


def git_argv(*args: str) -> list[str]:
    """`git` with every code-running setting off, then `args` (a safe command)."""
    if not args or args[0] not in SAFE_COMMANDS:
        raise ValueError(f"rivulet does not run `git {args[0] if args else ''}`: it could run repository code")
    argv = ["git", "--no-pager"]
    for setting in OVERRIDES:
        argv += ["-c", setting]
    return argv + list(args)


def run_git(workspace: Path, *args: str, timeout: float = 10) -> subprocess.CompletedProcess[bytes]:
    """Run a safe git command in `workspace`, its output captured. Raises OSError or
    subprocess.SubprocessError (no git, a time-out) like subprocess.run."""
    return subprocess.run(git_argv(*args), cwd=workspace, env=git_env(), capture_output=True,
                          stdin=subprocess.DEVNULL, timeout=timeout, check=False)
