"""Slash commands: `/word [argument]` runs a command of the registry
(app/commands/registry.py) instead of being sent; `//text` sends `/text`; an unknown `/word`
is named in one line and not sent. The parsing is every front end's (the chat's composer:
app/tui_commands.py; plain mode: app/plain/commands.py). In the chat, typing `/` opens the
completion popup (`SlashCompletions`, a provider for widgets/completion.py) over the same
entries the command palette lists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from rivulet.widgets.completion import Completion, Trigger, fuzzy_rank

_WORD = re.compile(r"/([^\s/][^\s]*)?")


class SlashCommand(Protocol):
    """What the slash side needs of a registry entry."""

    @property
    def slash(self) -> str | None: ...

    @property
    def help(self) -> str: ...

    @property
    def arg(self) -> str | None: ...


S = TypeVar("S", bound=SlashCommand)


@dataclass(frozen=True)
class Slash:
    name: str
    arg: str  # "" when none was given


def parse(text: str) -> Slash | str | None:
    """What the composer's text means: a command to run (Slash), text to send (a
    `//`-escaped line comes back with one slash less), or None: send it as it is."""
    if text.startswith("//"):
        return text[1:]
    if not text.startswith("/") or text.startswith("/ ") or text == "/":
        return None
    word, _, arg = text[1:].partition(" ")
    if "\n" in word:
        word, _, rest = word.partition("\n")
        arg = rest + (" " + arg if arg else "")
    return Slash(word, arg.strip())


def find(commands: Sequence[S], name: str) -> S | None:
    for cmd in commands:
        if cmd.slash == name:
            return cmd
    return None


def unknown_message(name: str, commands: Sequence[SlashCommand]) -> str:
    import difflib

    names = [c.slash for c in commands if c.slash]
    near = difflib.get_close_matches(name, names, n=1)
    hint = f" (did you mean /{near[0]}?)" if near else ""
    return f"Unknown command /{name}{hint}: /help lists them; //text sends /text as a message. Nothing was sent."


class SlashCompletions:
    """The `/` completion provider: while the whole text is one `/word`, the commands
    whose names match it fuzzily. Picking one with Enter runs it."""

    def __init__(self, commands: Callable[[], Sequence[SlashCommand]]) -> None:
        self.commands = commands

    def find(self, text: str, cursor: tuple[int, int]) -> Trigger | None:
        if not _WORD.fullmatch(text):
            return None
        query = text[1:]
        candidates = []
        for cmd in self.commands():
            if cmd.slash:
                # Tab after a command that takes an argument leaves the cursor where it goes.
                value = f"/{cmd.slash}" + (" " if cmd.arg else "")
                label = f"/{cmd.slash}" + (f" [{cmd.arg}]" if cmd.arg else "")
                candidates.append((cmd.slash, Completion(value, label, cmd.help, submit=True)))
        return Trigger((0, 0), (0, len(text)), query, fuzzy_rank(query, candidates))


def refusal(parsed: Slash, commands: Sequence[SlashCommand]) -> str | None:
    """Why `parsed` cannot run (an unknown word; an argument to a command without one), or None."""
    cmd = find(commands, parsed.name)
    if cmd is None:
        return unknown_message(parsed.name, commands)
    if parsed.arg and cmd.arg is None:
        return f"/{cmd.slash} takes no argument: nothing was run or sent"
    return None
