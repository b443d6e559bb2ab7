"""`rivulet doctor --report`: the doctor's findings as Markdown, to paste into a server's
bug tracker: versions, each probe, the raw deviations, and the smallest request that
failed, as a curl command.

Everything the server said is sanitised and cut, and fenced so it cannot become
Markdown; no key leaves: the request's key header is written as the variable it is
read from, query values other than api-version are elided, and the text passes
`errors.redact` (every registered secret masked) on the way out.
"""

from __future__ import annotations

import json
import platform
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from rivulet.core.errors import redact
from rivulet.core.sanitize import sanitize

if TYPE_CHECKING:
    from rivulet.app.doctor import DoctorProbe, Report
    from rivulet.core.config import Settings

SHOWN_QUERY = ("api-version",)  # query parameters known to carry no secret
MODELS_SHOWN = 20


def _cell(text: Any, limit: int = 160) -> str:
    one = " ".join(sanitize(str(text if text is not None else "")).split())
    one = one if len(one) <= limit else one[: limit - 1] + "…"
    return one.replace("|", "\\|").replace("`", "'")


def _fence(text: str) -> str:
    body = sanitize(text)
    ticks = "```"
    while ticks in body:
        ticks += "`"
    return f"{ticks}\n{body}\n{ticks}"


def _versions() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    from rivulet.app import VERSION

    out = [f"rivulet {VERSION}", f"Python {sys.version.split()[0]}", f"{platform.system()} {platform.machine()}"]
    for name in ("httpx", "websockets"):
        try:
            out.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return out


def failing_request(probe: DoctorProbe, settings: Settings) -> str:
    """The probe's request as a curl command, the key as its variable, never its value."""
    query = {k: (v if k in SHOWN_QUERY else "…") for k, v in settings.query.items()}
    url = settings.endpoint.display("responses")
    if query:
        url += "?" + urlencode(query)
    lines = [f"curl -N '{url}' \\", "  -H 'Content-Type: application/json' \\"]
    if settings.api_key is not None and settings.auth != "none":
        var = settings.key_variable()
        header = f"api-key: ${var}" if settings.auth == "api-key" else f"Authorization: Bearer ${var}"
        lines.append(f'  -H "{header}" \\')
    body = json.dumps(probe.request or {}, ensure_ascii=True)
    lines.append(f"  -d '{body.replace(chr(39), chr(39) + chr(92) + chr(39) + chr(39))}'")
    return "\n".join(lines)


def markdown_report(report: Report, settings: Settings, models: list[str]) -> str:
    out = [f"# rivulet doctor report: {_cell(report.server)}", ""]
    out += [f"- versions: {', '.join(_versions())}",
            f"- server: `{_cell(settings.endpoint.safe)}`" + (f" (provider {settings.provider})"
                                                                    if settings.provider else ""),
            f"- model: `{_cell(report.model)}`",
            f"- models listed: {len(models)}" + (f" ({', '.join(_cell(m, 60) for m in models[:MODELS_SHOWN])}"
                                                 f"{', …' if len(models) > MODELS_SHOWN else ''})" if models else
                                                 " (GET /models gave none)"),
            f"- can chat: {'yes' if report.can_chat else 'no'}", "", "## Probes", "",
            "| probe | result | seconds | detail |", "|---|---|---|---|"]
    for p in report.probes:
        result = "warn" if p.ok and p.warn else {True: "ok", False: "FAIL", None: "n/a"}[p.ok]
        out.append(f"| {_cell(p.name)} | {result} | {p.seconds:.2f} | {_cell(p.detail)} |")
    out += ["", "## Protocol deviations", ""]
    if report.deviations:
        out.append(_fence("\n".join(json.dumps(d.to_json(), ensure_ascii=True) for d in report.deviations.values())))
    else:
        out.append("None seen.")
    failed = next((p for p in report.probes if p.ok is False and p.request is not None), None)
    out += ["", "## Minimal failing request", ""]
    if failed is None:
        out.append("No probe failed.")
    else:
        status = f" (HTTP {failed.http_status})" if failed.http_status else ""
        out += [f"The {_cell(failed.name)} probe{status}: {_cell(failed.detail)}", "", _fence(failing_request(failed,
                                                                                                          settings))]
    if report.recommended:
        out += ["", "## What rivulet does with this server", ""]
        out += [f"- `{k} = {json.dumps(v)}`" + (f": {_cell(report.reasons[k])}" if k in report.reasons else "")
                for k, v in report.recommended.items()]
    return redact("\n".join(out))
