"""The user's saved prompts and `/init` as commands of the registry: `/NAME [ARGS]`
sends the prompt with its arguments filled in; a name a built-in holds becomes
`/prompts:NAME`, and a notice says so once. The files are read once per chat."""

from __future__ import annotations

from typing import Protocol
from weakref import WeakKeyDictionary

from rivulet.app.commands.command import Command, Run
from rivulet.app.commands.results import Result, Send
from rivulet.app.commands.services import HasEngine, HasNotify, HasWorkspace
from rivulet.core.prompts.expand import expand
from rivulet.core.prompts.files import SavedPrompt, commands_for, load_prompts
from rivulet.core.prompts.init_prompt import init_prompt


class PromptNeeds(HasEngine, HasNotify, HasWorkspace, Protocol):
    pass


# The workspace's saved prompts, read once per chat (a chat does not keep what its commands cache).
_SAVED: WeakKeyDictionary[object, dict[str, SavedPrompt]] = WeakKeyDictionary()


def _saved(s: PromptNeeds, builtin: set[str]) -> dict[str, SavedPrompt]:
    cached = _SAVED.get(s)
    if cached is not None:
        return cached
    if s.workspace is None:
        return {}
    found = load_prompts(s.workspace, s.engine.settings.prompts_dir)
    words, clashes = commands_for(found.prompts, builtin)
    for line in [*clashes, *found.skipped]:  # never in silence (a name is the repository's: the front end sanitises)
        s.notify(line, severity="warning", timeout=10)
    _SAVED[s] = words
    return words


def own_commands(s: PromptNeeds, builtin: set[str]) -> list[Command]:
    """`/init`, then every saved prompt."""
    out = []
    if "init" not in builtin:
        out.append(Command("Write AGENTS.md", "Ask the model to write an AGENTS.md for this repository (a patch, "
                           "approved as any other)", _init, "init"))
    for word, prompt in _saved(s, builtin | {"init"}).items():
        about = prompt.description or "saved prompt"
        out.append(Command(f"/{word}: {about}", f"{about} ({prompt.label})", _prompt_command(prompt), word, "ARGS"))
    return out


def _prompt_command(prompt: SavedPrompt) -> Run:
    async def run(s: object, args: str = "") -> Result:
        return Send(expand(prompt.body, args))

    return run


async def _init(s: HasWorkspace, arg: str = "") -> Result:
    return Send(init_prompt(s.workspace)) if s.workspace is not None else None
