"""A command of the one registry (app/commands/registry.py): its names, its help, and what
it runs, given the front end's services and the argument typed after its `/word`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rivulet.app.commands.results import Result
    from rivulet.app.commands.services import Services

Run = Callable[["Services", str], Awaitable["Result"]]


@dataclass(frozen=True)
class Command:
    title: str  # as the palette shows it
    help: str
    run: Run  # each run names what it reads of the services in its own `Needs` protocol
    slash: str | None = None  # the `/word` that runs it, if any (None: the palette's alone)
    arg: str | None = None  # what `/word ARG` takes, for /help and the popup (None: no argument)
