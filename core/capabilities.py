"""The capability cache: what the doctor's probes found about a server, kept per server
(its URL and the fingerprint of its model list) in `servers.json` beside the sessions
folder, and applied to later runs: the patch tool, the transport, incremental WebSocket
requests, whether to ask for reasoning summaries.

What the user set (file, profile, environment, -c, flags: `Settings.explicit`) always
wins; a value the cache applies is named in /status with its reason. The file is
written whole and atomically, holds at most MAX_SERVERS servers, and is read as
untrusted: only known settings with known values are applied, every string is cut and
shown sanitised, and a broken file counts as empty.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from rivulet.core.config_sources import sessions_dir
from rivulet.core.server_endpoint import safe_url
from rivulet.core.store.write_file import write_private

if TYPE_CHECKING:
    from rivulet.core.config import Settings

MAX_SERVERS = 64
MAX_BYTES = 512 * 1024
DETAIL_CHARS = 200
# The settings a probe may decide, and the values it may give each (anything else in the
# file is ignored: the file is data, never a second config).
APPLIES: dict[str, tuple[Any, ...]] = {
    "patch_tool": ("custom", "function"),
    "transport": ("sse", "ws"),
    "ws_incremental": (True, False),
    "reasoning_summary": ("auto", "off"),
}
OPENAI_HOSTS = ("api.openai.com",)
# Servers the user runs: probed in the background the first time, unasked.
LOCAL_PRESETS = ("llamacpp", "vllm", "ollama", "lmstudio")
# Servers that bill the key (and may keep what is sent): never probed unasked, whatever
# their address; `rivulet doctor` probes them when the user asks.
PAID_PRESETS = ("openai", "azure", "openrouter")


def cache_path() -> Path:
    """`servers.json` in rivulet's data directory (the sessions folder's parent)."""
    return sessions_dir().parent / "servers.json"


def fingerprint(model_ids: Iterable[str]) -> str:
    """The model list, as 16 hex digits: a server that now serves other models is probed again."""
    return hashlib.sha256("\n".join(sorted(set(model_ids))).encode()).hexdigest()[:16]


class ServerCapabilities(msgspec.Struct, dict=True):
    url: str  # the base URL's safe form (ServerEndpoint.safe): no userinfo, no query
    fingerprint: str
    probed_at: float
    settings: dict[str, Any] = msgspec.field(default_factory=dict)  # setting -> value (APPLIES only)
    reasons: dict[str, str] = msgspec.field(default_factory=dict)  # setting -> the probe result behind it
    probes: list[dict[str, Any]] = msgspec.field(default_factory=list)  # name, ok, detail (cut)
    version: str = ""  # rivulet's, when probed

    @property
    def key(self) -> str:
        return f"{self.url}#{self.fingerprint}"


def _clip(text: Any, limit: int = DETAIL_CHARS) -> str:
    one = " ".join(str(text or "").split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _allowed(name: str, value: Any) -> bool:
    """One of the values this setting may take (True is not 1, "sse" is "sse")."""
    return any(type(value) is type(a) and value == a for a in APPLIES[name])


def _entry(raw: Any) -> ServerCapabilities | None:
    """One entry read from the file, or None when it is not one (hostile or old)."""
    if not isinstance(raw, dict):
        return None
    url, fp, at = raw.get("url"), raw.get("fingerprint"), raw.get("probed_at")
    if not (isinstance(url, str) and isinstance(fp, str) and isinstance(at, (int, float))):
        return None
    settings, reasons, probes = raw.get("settings"), raw.get("reasons"), raw.get("probes")
    settings = settings if isinstance(settings, dict) else {}
    reasons = reasons if isinstance(reasons, dict) else {}
    probes = probes if isinstance(probes, list) else []
    return ServerCapabilities(
        url=_clip(url, 500), fingerprint=_clip(fp, 64), probed_at=float(at),
        settings={k: v for k, v in settings.items() if k in APPLIES and _allowed(k, v)},
        reasons={k: _clip(v) for k, v in reasons.items() if k in APPLIES and isinstance(v, str)},
        probes=[{"name": _clip(p.get("name"), 80), "ok": p.get("ok") if p.get("ok") in (True, False, None) else None,
                 "detail": _clip(p.get("detail"))} for p in probes[:16] if isinstance(p, dict)],
        version=_clip(raw.get("version"), 40),
    )


def load(path: Path | None = None) -> dict[str, ServerCapabilities]:
    """Every entry of the cache; an absent, oversized, unreadable or broken file is empty."""
    from rivulet.core.config_sources import read_config_text
    from rivulet.core.errors import ConfigError

    path = path or cache_path()
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return {}
        data = json.loads(read_config_text(path) or "{}")
    except (OSError, ValueError, ConfigError):
        return {}
    servers = data.get("servers") if isinstance(data, dict) else None
    entries = [e for e in (_entry(raw) for raw in (servers if isinstance(servers, list) else [])) if e is not None]
    return {e.key: e for e in entries}


def merged(old: ServerCapabilities | None, new: ServerCapabilities, unprobed: Iterable[str] = ()) -> ServerCapabilities:
    """A run's findings over what an earlier run of the same server and model list found:
    a setting this run did not decide (its probe failed, or was not tried: `unprobed`) keeps
    the earlier value (a `reasoning_summary = off` found with another chat template), and
    the earlier result of a probe this run did not try stays beside the new ones."""
    if old is None or old.fingerprint != new.fingerprint or old.url != new.url:
        return new
    keep = set(unprobed)
    settings, reasons = dict(new.settings), dict(new.reasons)
    for name, value in old.settings.items():
        if name not in settings or name in keep:
            settings[name] = value
            if name in old.reasons:
                reasons[name] = old.reasons[name]
    earlier = {p.get("name"): p for p in old.probes}
    probes = [p if p.get("ok") is not None else earlier.get(p.get("name"), p) for p in new.probes]
    named = {p.get("name") for p in new.probes}
    probes += [p for p in old.probes if p.get("name") not in named]
    return msgspec.structs.replace(new, settings=settings, reasons=reasons, probes=probes)


def lookup(url: str, fp: str | None = None, path: Path | None = None) -> ServerCapabilities | None:
    """This server's entry: the one for its model list when `fp` is given, else its newest."""
    mine = [e for e in load(path).values() if e.url == safe_url(url)]
    if fp is not None:
        mine = [e for e in mine if e.fingerprint == fp]
    return max(mine, key=lambda e: e.probed_at, default=None)


def store(entry: ServerCapabilities, path: Path | None = None) -> None:
    """Add or replace this server's entry (one per URL), keep the newest MAX_SERVERS, and
    write the file atomically (a new file renamed over the old: a reader never sees half)."""
    path = path or cache_path()
    kept = [e for e in load(path).values() if e.url != entry.url]
    kept = sorted([*kept, entry], key=lambda e: e.probed_at, reverse=True)[:MAX_SERVERS]
    text = json.dumps({"servers": [msgspec.structs.asdict(e) for e in kept]}, ensure_ascii=True, indent=1)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_private(path, text)


def wants_probe(settings: Settings) -> bool:
    """A server rivulet has no built-in knowledge of: not OpenAI's own API (the cache applies)."""
    return settings.probe_servers and settings.endpoint.host not in OPENAI_HOSTS and settings.provider != "openai"


def is_local_server(settings: Settings) -> bool:
    """A server the user runs: a local preset, or no preset (or `custom`) at a local
    address. The chat may talk to it before the user sends anything; a paid preset's
    server, or one on the internet, hears nothing until then."""
    if settings.provider in LOCAL_PRESETS:
        return True
    return settings.provider in (None, "custom") and settings.endpoint.is_local


def probes_unasked(settings: Settings) -> bool:
    """The chat may probe this server in the background, without asking: a local one."""
    return wants_probe(settings) and is_local_server(settings)


def apply(settings: Settings, entry: ServerCapabilities) -> dict[str, str]:
    """Set what the probes decided on `settings`, except what the user set; returns (and
    records in `settings.applied`) setting -> why, for /status."""
    applied: dict[str, str] = {}
    when = time.strftime("%Y-%m-%d", time.localtime(entry.probed_at))
    for name, value in entry.settings.items():
        if name in settings.explicit:
            continue
        setattr(settings, name, value)
        applied[name] = f"{entry.reasons.get(name) or 'probed'} (probed {when})"
    settings._applied = applied  # a new dict: a copy of the settings keeps its own
    return applied


def entry_from_probes(url: str, fp: str, probes: list[Any], recommended: dict[str, Any], reasons: dict[str, str],
                      version: str) -> ServerCapabilities:
    """An entry from a doctor run (app/doctor.py's Probe objects and recommendations)."""
    raw = {"url": safe_url(url), "fingerprint": fp, "probed_at": time.time(), "settings": recommended,
           "reasons": reasons, "version": version,
           "probes": [{"name": p.name, "ok": p.ok, "detail": p.detail} for p in probes]}
    made = _entry(raw)
    assert made is not None
    return made
