"""`rivulet doctor` as a command: the settings, the probes (app/doctor.py), the report
printed as lines, JSON or Markdown, and what the capability cache learned."""

from __future__ import annotations

import argparse
import json
import sys

import tomlkit

from rivulet.app.doctor import Doctor, Report
from rivulet.core.errors import ConfigError
from rivulet.core.sanitize import sanitize


def render(report: Report) -> str:
    lines = [f"rivulet doctor · {report.server} · model {report.model}", ""]
    for p in report.probes:
        mark = "warn" if p.ok and p.warn else {True: "ok  ", False: "FAIL", None: "--  "}[p.ok]
        lines.append(f"  {mark} {p.name:<38} {p.seconds:6.2f}s  {sanitize(p.detail)}")
    lines.append("")
    if report.deviations:
        lines.append("Protocol deviations (tolerated; --strict would refuse them):")
        for d in report.deviations.values():
            lines.append(f"  - {d.rule}: {sanitize(d.detail)}")
    else:
        lines.append("Protocol deviations: none seen")
    if report.recommended:
        lines += ["", "Recommended settings (config.toml):"]
        # Written by tomlkit, so the block pastes into config.toml as it is (strings quoted).
        lines += [f"  {sanitize(line)}" for line in tomlkit.dumps(report.recommended).splitlines()]
    for note in report.notes:
        lines.append(f"  # {sanitize(note)}")
    if not report.can_chat:
        lines += ["", "The server cannot chat: the plain text probe failed."]
    return "\n".join(lines)


async def run_doctor(args: argparse.Namespace) -> int:
    from rivulet.app.boot import fail as _fail
    from rivulet.app.boot import settings_for
    from rivulet.core.assembly import FrontEnd, Ground, open_conversation

    try:
        settings, demo = settings_for(args, say=lambda note: print(sanitize(f"rivulet doctor: {note}"),
                                                                  file=sys.stderr))
    except ConfigError as exc:
        return _fail(exc.message, 2)
    # The server as every front end reaches it, through the one assembly: its probes go over
    # SSE (the WebSocket is probed on its own); no workspace, tools or session (no turn runs).
    engine = open_conversation(Ground(settings=settings.model_copy(update={"transport": "sse"})),
                               FrontEnd(name="doctor"))
    from rivulet.app.capability_probe import remember, server_fingerprint

    stored = not args.no_store
    keyed = bool(settings.api_key and settings.api_key.get_secret_value()) and settings.auth != "none"
    print(sanitize(f"rivulet doctor: about {9 if stored else 7} short requests to {settings.endpoint.safe}"
                   + (" on your key" if keyed else "")  # (a local server has none: issue 42's field run)
                   + ("; 2 of them set store: true (the server keeps them) to try previous_response_id: "
                      "--no-store skips them" if stored else "")), file=sys.stderr)
    try:
        fp, models = await server_fingerprint(engine.settings)
        report = await Doctor(engine.settings, args.timeout, stored=stored, sse=engine.transport).run()
    finally:
        await engine.aclose()
        if demo is not None:
            demo.stop()
    # `--json` is read by scripts: it leaves the cache as it was, unless asked (`--refresh`).
    keep = args.json and not args.refresh
    change = remember(settings, report, fp) if report.can_chat and demo is None and not keep else None
    if args.report:
        from rivulet.app.doctor_report import markdown_report

        print(markdown_report(report, settings, models))
    elif args.json:
        print(json.dumps(report.to_json(), ensure_ascii=True))
    else:
        print(render(report))
        if change is not None and (args.refresh or change):
            print(sanitize(change or "Capability cache: unchanged for this server."))
    return 0 if report.can_chat else 1
