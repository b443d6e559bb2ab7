"""The capability cache at work (core/capabilities.py holds the file): applied when a
run starts, filled by `rivulet doctor`, and, the first time the chat talks to a local
server (a local preset, or a loopback or private address: `caps.probes_unasked`), by
the doctor's quick probes in the background. A paid provider's server (openai, azure,
openrouter) or one on the internet is never probed unasked: each probe is a request
on the user's key; `rivulet doctor` probes it when the user asks. The background
probes never send `store: true` (the previous_response_id probe is the doctor's alone).

The probe's findings apply from the next start (the tools and transport of this chat
are already made); the chat says so once, in one note.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rivulet.core import capabilities as caps
from rivulet.core.errors import RivuletError

if TYPE_CHECKING:
    from rivulet.app.doctor import Report
    from rivulet.core.config import Settings

PROBE_TIMEOUT = 60.0  # seconds for each background probe: a slow CPU model needs them
IDLE_POLL = 0.5  # seconds between looks at whether the chat's turn has ended


def apply_cached(settings: Settings) -> dict[str, str]:
    """At start: what the cache knows about this server, over the defaults (never over
    what the user set). Nothing for OpenAI's own API or with probe_servers = false."""
    if not caps.wants_probe(settings):
        return {}
    entry = caps.lookup(settings.base_url)
    return caps.apply(settings, entry) if entry is not None else {}


async def server_fingerprint(settings: Settings) -> tuple[str, list[str]]:
    """The fingerprint of the server's model list (GET /models), and the ids; a server
    that cannot list its models has the fingerprint of none."""
    from rivulet.core.protocol.models import fetch_models

    try:
        ids = [m.id for m in await fetch_models(settings, timeout=10)]
    except RivuletError:
        ids = []
    return caps.fingerprint(ids), ids


def remember(settings: Settings, report: Report, fp: str) -> str:
    """Store a doctor run's findings for this server; returns what changed, in one line
    ("" when nothing did)."""
    from rivulet.app import VERSION

    old = caps.lookup(settings.base_url)
    recommended = {k: v for k, v in report.recommended.items() if k in caps.APPLIES}
    entry = caps.entry_from_probes(settings.base_url, fp, report.probes, recommended, report.reasons, VERSION)
    entry = caps.merged(old, entry, unprobed(report))
    try:
        caps.store(entry)
    except OSError as exc:
        return f"Capability cache: not saved ({exc.strerror or exc})"
    before = old.settings if old is not None else {}
    changed = [f"{k} = {_toml(v)}" + (f" (was {_toml(before[k])})" if k in before else "")
               for k, v in entry.settings.items() if before.get(k) != v]
    if not changed:
        return ""
    return f"Capability cache ({caps.cache_path()}): {', '.join(changed)}; applied to later runs unless set by you"


def unprobed(report: Report) -> set[str]:
    """The settings this run did not decide: `ws_incremental` when previous_response_id
    was not tried (its requests set store: true; the background probe never sends them)."""
    from rivulet.app.doctor import STORED_PROBE

    return {"ws_incremental"} if any(p.name == STORED_PROBE and p.ok is None for p in report.probes) else set()


def _toml(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else f'"{value}"'


async def probe_in_background(settings: Settings, say: Any, busy: Callable[[], bool] | None = None) -> str | None:
    """The first time this server (and model list) is seen: the doctor's probes, stored.
    `say` gets the one note for the user. While `busy()` (a turn runs) the probes wait:
    a local server often has one slot, and the user's answer comes first. Returns the
    note (None: nothing was probed)."""
    from rivulet.app.doctor import Doctor

    if not caps.probes_unasked(settings):
        return None
    fp, ids = await server_fingerprint(settings)
    if caps.lookup(settings.base_url, fp) is not None:
        return None
    while busy is not None and busy():
        await asyncio.sleep(IDLE_POLL)
    # The user's settings, not this chat's: a model switch later does not change what is probed.
    probed = settings.model_copy()
    from rivulet.core.server_model import pick, wants_server_model

    own = pick(probed.model, ids)[0] if wants_server_model(probed) else None
    if own is not None:  # the server's one model, even if the chat has not taken it yet (issue 42.2)
        probed.model = own
    report = await Doctor(probed, PROBE_TIMEOUT, stored=False).run()
    if not report.can_chat:
        return None
    remember(settings, report, fp)
    found = ", ".join(f"{k} {_toml(v).strip(chr(34))}" for k, v in report.recommended.items() if k in caps.APPLIES)
    from rivulet.core.command_name import command_name

    note = (f"Probed this server once: {found}. Used from the next start, unless you set them "
            f"(/status says why; {command_name()} doctor --refresh probes again).")
    say(note)
    return note
