"""Recorded streams: `.sse` bodies and `.jsonl` event files (one data payload a line).

Used by tests, benchmarks and (later) replay. A `.jsonl` file may hold several
streams of a multi-step run; each `response.created` starts a new one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Recording:
    name: str
    body: bytes  # an SSE body, as a server would send it
    payloads: list[str]  # the data fields, in order


def sse_body(payloads: list[str]) -> bytes:
    out = []
    for data in payloads:
        try:
            etype = json.loads(data).get("type")
        except ValueError:
            etype = None
        if etype:
            out.append(f"event: {etype}\n")
        out.extend(f"data: {line}\n" for line in data.split("\n"))
        out.append("\n")
    return "".join(out).encode()


def sse_payloads(body: bytes) -> list[str]:
    """Data fields of an SSE body (a simple reference decoder for test data)."""
    payloads = []
    for block in body.decode().replace("\r\n", "\n").split("\n\n"):
        lines = [ln[5:].removeprefix(" ") for ln in block.split("\n") if ln.startswith("data:")]
        if lines:
            payloads.append("\n".join(lines))
    return payloads


def load(path: Path) -> list[Recording]:
    raw = path.read_bytes()
    if path.suffix == ".sse":
        return [Recording(path.name, raw, sse_payloads(raw))]
    streams: list[list[str]] = []
    for line in raw.decode().splitlines():
        if not line.strip():
            continue
        if json.loads(line).get("type") == "response.created" or not streams:
            streams.append([])
        streams[-1].append(line)
    return [Recording(f"{path.name}#{n}", sse_body(p), p) for n, p in enumerate(streams, 1)]
