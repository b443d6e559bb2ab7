"""The command palette's provider (ctrl+p): the registry's commands (app/commands/registry.py),
fuzzy matched; the one picked runs as a `/word` would (app/tui_commands.py)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from rivulet.app.commands.command import Command


class RivuletCommands(Provider):
    """Command palette entries of rivulet's own."""

    def _commands(self) -> list[tuple[Command, partial[None]]]:
        from rivulet.app.commands.registry import palette_commands
        from rivulet.app.tui import RivuletApp
        from rivulet.app.tui_commands import start

        app = self.app
        # The palette is the chat's (RivuletApp.COMMANDS); still starting, the commands have no conversation.
        if not isinstance(app, RivuletApp) or app.conversation is None:
            return []
        return [(cmd, partial(start, app, cmd, "")) for cmd in palette_commands(app.services)]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd, run in self._commands():
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(score, matcher.highlight(cmd.title), run, help=cmd.help)

    async def discover(self) -> Hits:
        for cmd, run in self._commands():
            yield DiscoveryHit(cmd.title, run, help=cmd.help)
