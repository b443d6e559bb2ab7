"""doctor and the capability cache (issue 42.6): a run's findings are merged with what it
did not decide (a probe that failed this time, one not tried), and `doctor --json`
leaves the cache alone unless `--refresh`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.aimock import rivulet
from helpers.canned_server import CannedServer
from helpers.streams import simple_text_response

from rivulet.app.capability_probe import remember
from rivulet.app.doctor import STORED_PROBE, DoctorProbe, Report
from rivulet.core import capabilities as caps
from rivulet.core.config import Settings

URL = "http://127.0.0.1:8080/v1"
FP = caps.fingerprint(["qwen"])
MODELS = [{"id": "qwen", "object": "model"}]


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    for name in list(os.environ):
        if name.startswith(("RIVULET_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    monkeypatch.setenv("RIVULET_CONFIG", os.devnull)
    return tmp_path / "servers.json"


def _report(reasoning: bool, chained: bool | None, patch_tool: str) -> Report:
    report = Report(URL, "qwen", probes=[
        DoctorProbe("plain text", True, "answered: hi"),
        DoctorProbe("reasoning", reasoning, "raw reasoning text" if reasoning else "no reasoning item"),
        DoctorProbe(STORED_PROBE, chained, "accepted; the answer used the earlier turn" if chained else "not tried"),
    ])
    report.recommended = {"patch_tool": patch_tool, "transport": "sse", "ws_incremental": bool(chained)}
    report.reasons = {"patch_tool": f"run with {patch_tool}", "ws_incremental": "kept" if chained else "not probed"}
    if reasoning:
        report.recommended["reasoning_summary"] = "off"
        report.reasons["reasoning_summary"] = "reasoning comes as raw text"
    return report


def test_a_later_run_keeps_what_it_did_not_decide(data):
    s = Settings(base_url=URL, model="qwen")
    remember(s, _report(reasoning=True, chained=True, patch_tool="custom"), FP)
    # Another chat template: no reasoning this time, previous_response_id not tried.
    remember(s, _report(reasoning=False, chained=None, patch_tool="function"), FP)
    entry = caps.lookup(URL, FP)
    assert entry is not None
    assert entry.settings == {"patch_tool": "function", "transport": "sse", "ws_incremental": True,
                              "reasoning_summary": "off"}
    assert entry.reasons["reasoning_summary"] == "reasoning comes as raw text"
    by_name = {p["name"]: p["ok"] for p in entry.probes}
    assert by_name == {"plain text": True, "reasoning": False, STORED_PROBE: True}


def test_another_model_list_starts_afresh(data):
    s = Settings(base_url=URL, model="qwen")
    remember(s, _report(reasoning=True, chained=True, patch_tool="custom"), FP)
    remember(s, _report(reasoning=False, chained=None, patch_tool="function"), caps.fingerprint(["llama"]))
    entry = caps.lookup(URL)
    assert entry is not None and "reasoning_summary" not in entry.settings and entry.settings["ws_incremental"] is False


def test_doctor_json_leaves_the_cache_alone_unless_refresh(data):
    with CannedServer(simple_text_response("hi"), models=MODELS) as server:
        proc = rivulet("doctor", "--json", "--no-store", "--base-url", server.base_url, "--timeout", "20")
        assert proc.returncode == 0, proc.stderr
        assert not data.exists()
        proc = rivulet("doctor", "--json", "--no-store", "--refresh", "--base-url", server.base_url, "--timeout", "20")
        assert proc.returncode == 0, proc.stderr
        assert caps.lookup(server.base_url) is not None
