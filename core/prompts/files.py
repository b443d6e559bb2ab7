"""Saved prompts: `NAME.md` in the user's prompts folder (beside the config file, or the
`prompts_dir` setting) and in the workspace's `.rivulet/prompts/`, marked as the
repository's. Each becomes `/NAME`.

A file name is the repository's as much as the user's: only plain names become commands
(letters, digits, `-`, `_`, `.`; no control characters, markup or path tricks). Only
regular files are read, never through a link, and only up to a size cap; what is left
out is said in `skipped`, sanitised by whoever shows it.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")
MAX_BYTES = 64 * 1024
MAX_FILES = 200  # a folder of thousands is a mistake, not a menu
WORKSPACE_PROMPTS = Path(".rivulet") / "prompts"


@dataclass(frozen=True)
class SavedPrompt:
    name: str
    body: str
    description: str
    source: str  # "user" or "repository"
    path: Path

    @property
    def label(self) -> str:
        return "repository prompt" if self.source == "repository" else "your prompt"


@dataclass
class PromptSet:
    prompts: list[SavedPrompt] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one line each: what was left out, and why


def user_prompts_dir(setting: str | None = None) -> Path:
    if setting:
        return Path(setting).expanduser()
    from rivulet.core.config_sources import config_path

    return config_path().parent / "prompts"


def _read(path: Path) -> str:
    """A regular file's text, never through a link, never more than MAX_BYTES."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > MAX_BYTES:
            raise ValueError(f"{info.st_size:,} bytes, more than {MAX_BYTES:,}")
        data = os.read(fd, MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise ValueError(f"more than {MAX_BYTES:,} bytes")
        return data.decode("utf-8")
    finally:
        os.close(fd)


def split_front_matter(text: str) -> tuple[str, str]:
    """(description, body): an optional `---` block at the top may say `description: ...`."""
    if not text.startswith("---\n"):
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        return first.lstrip("# ")[:80], text
    head, sep, body = text[4:].partition("\n---\n")
    if not sep:
        return "", text
    description = ""
    for line in head.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "description":
            description = value.strip().strip("\"'")[:80]
    return description, body.lstrip("\n")


def _scan(folder: Path, source: str, out: PromptSet) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return  # no folder: no prompts
    shown = "~/" + str(folder.relative_to(Path.home())) if folder.is_relative_to(Path.home()) else str(folder)
    for entry in entries[:MAX_FILES]:
        if not entry.name.endswith(".md"):
            continue
        stem = entry.name[:-3]
        if not NAME.fullmatch(stem):
            out.skipped.append(f"{shown}: {entry.name!r} skipped: a prompt's name may hold letters, digits, "
                               "-, _ and . only")
            continue
        try:
            text = _read(Path(entry.path))
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            if isinstance(exc, OSError) and exc.errno == 40:  # ELOOP: O_NOFOLLOW met a link
                why = "a symbolic link (not followed)"
            out.skipped.append(f"{shown}: {entry.name} skipped: {why}")
            continue
        except UnicodeDecodeError:
            out.skipped.append(f"{shown}: {entry.name} skipped: not UTF-8 text")
            continue
        description, body = split_front_matter(text)
        out.prompts.append(SavedPrompt(stem, body, description, source, Path(entry.path)))
    if len(entries) > MAX_FILES:
        out.skipped.append(f"{shown}: only the first {MAX_FILES} files were read")


def load_prompts(workspace: Path, prompts_dir: str | None = None) -> PromptSet:
    """The user's prompts, then the repository's; a repository prompt never takes the
    name of one of the user's (it is skipped, and that is said)."""
    found = PromptSet()
    _scan(user_prompts_dir(prompts_dir), "user", found)
    repo = PromptSet()
    _scan(workspace / WORKSPACE_PROMPTS, "repository", repo)
    mine = {p.name for p in found.prompts}
    for prompt in repo.prompts:
        if prompt.name in mine:
            found.skipped.append(f"{WORKSPACE_PROMPTS}/{prompt.name}.md skipped: you have a prompt of that name")
        else:
            found.prompts.append(prompt)
    found.skipped += repo.skipped
    return found


def commands_for(prompts: list[SavedPrompt], builtin: set[str]) -> tuple[dict[str, SavedPrompt], list[str]]:
    """Each prompt's slash word: `NAME`, or `prompts:NAME` when a built-in command has
    that name (never shadowed in silence: the second list says so, once per clash)."""
    words: dict[str, SavedPrompt] = {}
    clashes = []
    for prompt in prompts:
        if prompt.name in builtin:
            words[f"prompts:{prompt.name}"] = prompt
            clashes.append(f"{prompt.name}.md ({prompt.label}) has the name of the built-in /{prompt.name}: "
                           f"run it as /prompts:{prompt.name}")
        else:
            words[prompt.name] = prompt
    return words, clashes
