"""/profile: list the config file's `[profiles.NAME]` tables and switch to one for the
next turn; and the lines /status gives the profile, the provider preset and what the
capability cache applied.

A switch loads the settings again as a start with `-p NAME` would (the command line's
flags and -c items still on top), then gives the conversation the new settings and a
new transport: history stays, the next request goes to the profile's server. While a
turn runs it waits: the turn finishes where it started.
"""

from __future__ import annotations

import argparse
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from rivulet.app.cli_args import complete
from rivulet.app.commands.results import Choose, Lines, Option, Result, Say
from rivulet.app.commands.services import HasArgs, HasEngine, HasStatus, HasTurns
from rivulet.core.command_name import command_name
from rivulet.core.config_sources import config_path
from rivulet.core.errors import ConfigError
from rivulet.core.server_endpoint import safe_url

if TYPE_CHECKING:
    from rivulet.core.config import Settings


def server_lines(s: Settings) -> list[str]:
    """/status: the profile, the provider preset, and each setting the probes chose (or
    why this server was not probed)."""
    from rivulet.core import capabilities as caps
    from rivulet.core.providers import PRESETS

    others = sorted(set(s.profiles) - {s.profile})
    more = f" (also: {', '.join(others)})" if others else ""
    lines = [f"profile        {s.profile or 'none'}{more}"]
    if s.provider:
        preset = PRESETS[s.provider]
        lines.append(f"provider       {preset.name}: {preset.about}")
    for n, (name, why) in enumerate(sorted(s.applied.items())):
        value = getattr(s, name)
        shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
        lines.append(f"{'probed' if n == 0 else '':15}{name} = {shown}: {why}")
    if not s.applied and caps.wants_probe(s) and not caps.probes_unasked(s):
        lines.append("probed         no: only a local server is probed unasked (each probe is a request on "
                     f"your key); {command_name()} doctor probes this one")
    return lines


def _summary(table: dict[str, Any]) -> str:
    parts = [str(table[k]) for k in ("provider", "model") if isinstance(table.get(k), str)]
    if isinstance(table.get("base_url"), str):
        parts.append(safe_url(table["base_url"]))
    return " · ".join(parts)


class ProfileNeeds(HasEngine, HasStatus, HasTurns, HasArgs, Protocol):
    pass


async def choose_profile(s: ProfileNeeds, arg: str = "") -> Result:
    settings = s.engine.settings
    names = sorted(settings.profiles)
    if not names:
        return Lines([f"No profiles: add [profiles.NAME] tables to {config_path()}",
                      'e.g. [profiles.local] with provider = "llamacpp", then '
                      f'{command_name()} -p local or /profile local'])
    if not arg:
        options = [Option(n, help=_summary(settings.profiles[n])) for n in names]
        return Choose("Profile for the next turn", options, partial(switch_profile, s), current=settings.profile)
    return await switch_profile(s, arg.strip())


async def switch_profile(s: ProfileNeeds, name: str) -> Result:
    from rivulet.app.boot import settings_for
    from rivulet.app.commands.model import refresh_model_status

    engine = s.engine
    if name == engine.settings.profile:
        return Say(f"Already using profile {name}")
    if s.turns.running():
        return Say("A turn is running: switch the profile when it ends", "warning")
    base = s.args or argparse.Namespace(base_url=None, model=None, approval=None, workspace=None, transport=None,
                                        demo=False)
    args = complete(argparse.Namespace(**{**vars(base), "profile": name, "demo": False}))
    try:
        settings, _ = settings_for(args, headless=True)  # never the demo in place of a profile
    except ConfigError as exc:
        return Say(exc.message, "error")
    await engine.switch_settings(settings)
    s.status.show_server(settings.endpoint.safe)
    refresh_model_status(s)
    return Lines([f"Profile: {name}, from the next turn on: {settings.model} at {settings.endpoint.safe}."])
