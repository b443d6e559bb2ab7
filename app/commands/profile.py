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
from typing import TYPE_CHECKING, Any

from rivulet.app.commands.output import show_note
from rivulet.core.config_sources import config_path
from rivulet.core.errors import ConfigError
from rivulet.core.sanitize import sanitize
from rivulet.core.server_endpoint import safe_url

if TYPE_CHECKING:
    from rivulet.app.commands.context import CommandContext
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
                     "your key); rivulet doctor probes this one")
    return lines


def _summary(table: dict[str, Any]) -> str:
    parts = [str(table[k]) for k in ("provider", "model") if isinstance(table.get(k), str)]
    if isinstance(table.get("base_url"), str):
        parts.append(safe_url(table["base_url"]))
    return " · ".join(parts)


async def choose_profile(app: CommandContext, arg: str = "") -> None:
    from rivulet.widgets.choice import Choice, ChoiceScreen

    s = app.running.settings
    names = sorted(s.profiles)
    if not names:
        await show_note(app, [f"No profiles: add [profiles.NAME] tables to {config_path()}",
                              'e.g. [profiles.local] with provider = "llamacpp", then rivulet -p local '
                              "or /profile local"])
        return
    if not arg:
        choices = [Choice(n, help=_summary(s.profiles[n])) for n in names]
        arg = await app.push_screen_wait(ChoiceScreen("Profile for the next turn", choices, current=s.profile)) or ""
        if not arg:
            return
    await switch_profile(app, arg.strip())


async def switch_profile(app: CommandContext, name: str) -> None:
    from rivulet.app.boot import settings_for
    from rivulet.app.commands.model import refresh_model_status

    if name == app.running.settings.profile:
        app.notify(f"Already using profile {sanitize(name)}", markup=False)
        return
    engine = app.engine
    if engine is None or (app.turn_worker is not None and app.turn_worker.is_running):
        busy = "The chat is still starting" if engine is None else "A turn is running"
        app.notify(f"{busy}: switch the profile when it ends", severity="warning", markup=False)
        return
    ready = app.ready
    base = getattr(ready, "args", None) or argparse.Namespace(base_url=None, model=None, approval=None,
                                                              workspace=None, transport=None, demo=False)
    args = argparse.Namespace(**{**vars(base), "profile": name, "demo": False})
    try:
        settings, _ = settings_for(args, headless=True)  # never the demo in place of a profile
    except ConfigError as exc:
        app.notify(sanitize(exc.message), severity="error", markup=False)
        return
    await engine.switch_settings(settings)
    refresh_model_status(app)
    where = settings.endpoint.safe
    await show_note(app, [f"Profile: {name}, from the next turn on: {settings.model} at {where}."])
