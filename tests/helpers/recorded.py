"""The recorded event streams of real servers (fixtures/real), loaded once per run when
a test first asks for them."""

from __future__ import annotations

from helpers.paths import REAL
from rivulet.core.protocol import recordings

# Event-stream captures. A `.wire.jsonl` file is a whole recorded HTTP exchange (requests,
# probes, answers: tests/helpers/wire_capture.py), replayed by its own test, not a stream.
CAPTURE_FILES = sorted(p for p in REAL.rglob("*") if p.suffix in (".sse", ".jsonl")
                       and not p.name.endswith(".wire.jsonl"))
RECORDINGS = [rec for path in CAPTURE_FILES for rec in recordings.load(path)]


def recording(name: str) -> recordings.Recording:
    matches = [r for r in RECORDINGS if r.name == name or r.name.startswith(name + "#")]
    assert matches, f"no recording named {name}"
    return matches[0]


def done_item(name: str, kind: str) -> dict:
    """The last item of type `kind` a recording committed (its response.output_item.done)."""
    import json

    events = [json.loads(p) for p in recording(name).payloads]
    items = [e["item"] for e in events if e.get("type") == "response.output_item.done"]
    return [i for i in items if i.get("type") == kind][-1]
