"""`/init`: ask the model to write an AGENTS.md for the repository. It writes it with
apply_patch, so the file is a patch the user approves like any other."""

from __future__ import annotations

from pathlib import Path

INIT_PROMPT = """Write an AGENTS.md file at the root of this repository: the instructions a coding agent \
needs to work in it. Look around first (the layout, the build and test commands, the linters, the conventions \
the code follows), then create the file with apply_patch. Keep it short and specific to this repository, \
with these sections: Project layout, Build and test, Code style, and Notes for changes (what a change must \
keep working). Do not invent commands you have not seen in the repository."""

UPDATE_NOTE = """

An AGENTS.md already exists: read it, keep what is still true, and improve it with a patch instead of \
replacing it."""


def init_prompt(workspace: Path) -> str:
    return INIT_PROMPT + (UPDATE_NOTE if (workspace / "AGENTS.md").exists() else "")
