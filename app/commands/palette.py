"""The command palette's provider: the entries of the command registry, fuzzy matched."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
    from rivulet.app.commands.registry import Command


class RivuletCommands(Provider):
    """Command palette entries of rivulet's own."""

    def _commands(self) -> list[Command]:
        from rivulet.app.commands.registry import app_commands
        # The palette is the chat's (RivuletApp.COMMANDS), whose App is a CommandContext.
        app = cast("CommandContext", self.app)
        if app.conversation is None:  # still starting: the commands act on the conversation
            return []
        return app_commands(app)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for cmd in self._commands():
            score = matcher.match(cmd.title)
            if score > 0:
                yield Hit(score, matcher.highlight(cmd.title), cmd.run, help=cmd.help)

    async def discover(self) -> Hits:
        for cmd in self._commands():
            yield DiscoveryHit(cmd.title, cmd.run, help=cmd.help)
