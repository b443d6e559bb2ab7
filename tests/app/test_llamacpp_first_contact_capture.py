"""The recorded wire of a real first contact (fixtures/real/llamacpp/
llamacpp_first_contact.wire.jsonl: rivulet with no config at all against llama-server and
Qwen2.5-Coder-1.5B, asked for a small patch), served again byte for byte: the first turn
offers apply_patch as a JSON function over SSE by itself, the background probes run once
(all but previous_response_id's, whose store: true requests only `rivulet doctor` sends),
the chat says so once, the cache is written for the server's model list, and the next
start applies it. (The model's patches were wrong and its last stream ends in llama.cpp's
bare error frame: that is the recording; asked again once, it fails the same way here, and
the turn ends there.)"""

from __future__ import annotations

import argparse
import json
import os

from helpers.paths import REAL
from helpers.tui import until
from helpers.wire_capture import WireReplay, _route

from rivulet.app.boot import prepare
from rivulet.app.cli import build_parser
from rivulet.app.tui import RivuletApp
from rivulet.core import capabilities as caps
from rivulet.core.server_model import WHY

CAPTURE = REAL / "llamacpp" / "llamacpp_first_contact.wire.jsonl"
PROMPT = "In greet.py, change the greeting from Hello to Howdy."
ORIGINAL = 'def greet(name):\n    return "Hello, " + name\n'  # as in the recorded workspace


def _args(url: str) -> argparse.Namespace:
    return build_parser().parse_args(["--base-url", url])


def _notes(app: RivuletApp) -> list[str]:
    return [str(n.message) for n in app._notifications if "Probed this server" in str(n.message)]


async def test_recorded_first_contact_with_llama_server(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_CONFIG", os.devnull)
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")  # as a user has it (the test suite turns it off)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "greet.py").write_text(ORIGINAL)
    monkeypatch.chdir(tmp_path / "ws")
    with WireReplay(CAPTURE) as server:
        recorded = [e for e in server.exchanges if e["path"].endswith("/models")]
        models = json.loads(recorded[0]["body"])["data"]
        # The last answer is llama.cpp's parser failure, which the turn asks again once (issue 42.5):
        # the replay fails the same way (a live model would sample anew).
        failed = next(e for e in server.exchanges if "does not match the expected" in e["body"])
        server.queues[_route(failed["method"], failed["path"])].append(failed)
        ready = prepare(_args(server.base_url))
        assert ready.settings.applied == {}  # nothing known yet; the model list is asked after the first frame
        app = RivuletApp.from_ready(ready)
        app.remember_theme = False
        async with app.run_test(size=(120, 40)) as pilot:
            # The one model the server lists is the model (issue 42.2).
            await until(pilot, lambda: ready.settings.applied == {"model": WHY}, "the server's model")
            assert ready.settings.model == models[0]["id"]
            await pilot.press(*PROMPT, "enter")
            await until(pilot, lambda: any(PROMPT in json.dumps(r["request"]) for r in server.requests),
                        "the first turn's request")
            turn = next(r["request"] for r in server.requests if PROMPT in json.dumps(r["request"]))
            assert [t["type"] for t in turn["tools"] if t.get("name") == "apply_patch"] == ["function"]
            assert turn["stream"] is True and app.transport.name == "sse"
            await until(pilot, lambda: _notes(app), "the probe's note")
            # Every recorded exchange was asked for, each found by its input, and nothing else; but
            # the two previous_response_id probes (store: true), which only `rivulet doctor` sends now.
            asked = [e for e in server.exchanges if not (isinstance(e["request"], dict) and e["request"].get("store"))]
            assert len(asked) == len(server.exchanges) - 2
            await until(pilot, lambda: len(server.requests) >= len(asked), "every recorded exchange")
            assert all(r["found"] for r in server.requests)
            assert not any(r["request"] and r["request"].get("store") for r in server.requests)
            assert len(_notes(app)) == 1
            assert _notes(app)[0].startswith("Probed this server once: patch_tool function, transport sse")
        entry = caps.lookup(server.base_url)
        assert entry is not None and entry.fingerprint == caps.fingerprint(m["id"] for m in models)
        assert entry.settings["patch_tool"] == "function" and entry.settings["transport"] == "sse"
        # The next start: applied, and /status can say why.
        again = prepare(_args(server.base_url))
        assert again.settings.applied.keys() >= {"patch_tool", "transport"}
        assert again.settings.patch_tool == "function" and again.transport.name == "sse"
        again.stop()
