"""A chat with no config at all, against a server that answers as llama.cpp's
llama-server did (its recorded model list and stream, fixtures/real/llamacpp/): the
first turn offers apply_patch as a JSON function over SSE by itself, the server is
probed once in the background, the chat says so once, and the next start applies it."""

from __future__ import annotations

import argparse
import json
import os

from helpers.canned_server import CannedServer
from helpers.paths import REAL
from helpers.tui import until

from rivulet.app.boot import prepare
from rivulet.app.cli import build_parser
from rivulet.app.tui import RivuletApp
from rivulet.core import capabilities as caps
from rivulet.core.server_model import WHY

LLAMA = REAL / "llamacpp"


def _args(url: str) -> argparse.Namespace:
    return build_parser().parse_args(["--base-url", url])


async def test_first_contact_with_llama_server(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_CONFIG", os.devnull)
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")  # as a user has it (the test suite turns it off)
    models = json.loads((LLAMA / "llamacpp_models.json").read_text())["data"]
    with CannedServer((LLAMA / "llamacpp_text.sse").read_bytes(), models=models) as server:
        ready = prepare(_args(server.base_url))
        assert ready.settings.applied == {}  # nothing known yet; the model list is asked after the first frame
        app = RivuletApp.from_ready(ready)
        app.remember_theme = False
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press(*"zebra", "enter")  # at once: the probe runs beside the first turn
            # The one model the server lists is the model (issue 42.2), from its answer on.
            await until(pilot, lambda: ready.settings.applied.get("model") == WHY, "the server's model")
            assert ready.settings.model == models[0]["id"]
            await until(pilot, lambda: any("zebra" in json.dumps(r.get("input")) for r in server.requests),
                        "the first turn's request")
            turn = next(r for r in server.requests if "zebra" in json.dumps(r.get("input")))
            patch = [t for t in turn["tools"] if t.get("name") == "apply_patch"]
            assert [t["type"] for t in patch] == ["function"]
            assert app.transport.name == "sse"
            await until(pilot, lambda: any("Probed this server once" in str(n.message) for n in app._notifications),
                        "the probe's note")
            notes = [str(n.message) for n in app._notifications if "Probed this server" in str(n.message)]
            assert len(notes) == 1
            assert notes[0].startswith("Probed this server once: patch_tool function, transport sse")
        entry = caps.lookup(server.base_url)
        assert entry is not None and entry.fingerprint == caps.fingerprint(m["id"] for m in models)
        # The next start: applied, and /status can say why.
        again = prepare(_args(server.base_url))
        assert again.settings.applied.keys() >= {"patch_tool", "transport"}
        assert again.transport.name == "sse"
        again.stop()
