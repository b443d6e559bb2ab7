"""The user's saved prompts and `/init` as commands of the registry: `/NAME [ARGS]`
sends the prompt with its arguments filled in; a name a built-in holds becomes
`/prompts:NAME`, and a notice says so once. The files are read once per chat."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from rivulet.core.prompts.expand import expand
from rivulet.core.prompts.files import SavedPrompt, commands_for, load_prompts
from rivulet.core.prompts.init_prompt import init_prompt
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
    from rivulet.app.commands.registry import Command


# The workspace's saved prompts, read once per chat (a chat does not keep what its commands cache).
_SAVED: WeakKeyDictionary[CommandContext, dict[str, SavedPrompt]] = WeakKeyDictionary()


def send(app: CommandContext, text: str) -> None:
    """Send `text` as the user's message (what typing it would do)."""
    if app.conversation is None:
        return
    if app.turn_worker is not None and app.turn_worker.is_running:
        app.notify("A turn is running: press Esc to interrupt it first.", severity="warning")
        return
    app.chat.transcript.follow()
    app.run_turn(app.shell_context.take(text) if hasattr(app, "shell_context") else text)


def _run_prompt(app: CommandContext, prompt: SavedPrompt, args: str = "") -> None:
    send(app, expand(prompt.body, args))


def _saved(app: CommandContext, builtin: set[str]) -> dict[str, SavedPrompt]:
    cached = _SAVED.get(app)
    if cached is not None:
        return cached
    workspace = app.tool_settings.workspace if app.tool_settings is not None else None
    if workspace is None or app.settings is None:
        return {}
    found = load_prompts(workspace, app.settings.prompts_dir)
    words, clashes = commands_for(found.prompts, builtin)
    for line in [*clashes, *found.skipped]:  # never in silence; shown sanitised (a name is the repository's)
        app.notify(sanitize(line), severity="warning", timeout=10, markup=False)
    _SAVED[app] = words
    return words


def own_commands(app: CommandContext, builtin: set[str]) -> list[Command]:
    """`/init`, then every saved prompt."""
    from rivulet.app.commands.registry import Command

    out = []
    if "init" not in builtin:
        out.append(Command("Write AGENTS.md", "Ask the model to write an AGENTS.md for this repository (a patch, "
                           "approved as any other)", partial(_init, app), "init"))
    for word, prompt in _saved(app, builtin | {"init"}).items():
        about = prompt.description or "saved prompt"
        run = partial(_run_prompt, app, prompt)
        out.append(Command(f"/{word}: {about}", f"{about} ({prompt.label})", run, word, "ARGS", run))
    return out


def _init(app: CommandContext) -> None:
    if app.tool_settings is not None:
        send(app, init_prompt(app.tool_settings.workspace))
