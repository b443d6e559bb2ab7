"""The command palette's provider: the entries of the command registry, fuzzy matched."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

from rivulet.app.commands.registry import Command, app_commands


class RivuletCommands(Provider):
    """Command palette entries of rivulet's own."""

    def _commands(self) -> list[Command]:
        from rivulet.app.tui import RivuletApp

        app = self.app
        assert isinstance(app, RivuletApp)
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
