"""A local server with no model set: the one model it lists is the model (sent, shown,
recorded); several are none of them, said once with /model (issue 42.2). Against a
server that behaves as llama-server does (closes after each answer, lists one model)."""

from __future__ import annotations

import json

import pytest
from helpers.aimock import rivulet
from helpers.raw_http_server import RawServer, closes_after_one, response
from helpers.streams import simple_text_response

from rivulet.app.boot import prepare, settings_for
from rivulet.app.cli import build_parser
from rivulet.core.config_sources import DEFAULT_MODEL
from rivulet.core.server_model import WHY

ONE = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def llama_server(ids: list[str]) -> tuple[RawServer, list[dict]]:
    sent: list[dict] = []

    def answer(line: str, headers: dict[str, str], raw: bytes) -> bytes:
        if line.startswith("GET") and "/models" in line:
            listed = {"object": "list", "data": [{"id": i, "object": "model", "owned_by": "llamacpp"} for i in ids]}
            return response(json.dumps(listed).encode(), content_type="application/json")
        sent.append(json.loads(raw))
        return response(simple_text_response("hi"), content_type="text/event-stream")

    return RawServer(closes_after_one(answer)), sent


@pytest.fixture(autouse=True)
def _probes_on(monkeypatch):
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "true")  # (the suite turns it off)


def test_exec_sends_and_records_the_one_model_the_server_lists(tmp_path):
    server, sent = llama_server([ONE])
    try:
        proc = rivulet("exec", "--json", "--base-url", server.url + "/v1", "hello",
                       env={"RIVULET_SESSIONS_DIR": str(tmp_path / "sessions"), "RIVULET_PROBE_SERVERS": "true"})
    finally:
        server.close()
    assert proc.returncode == 0, proc.stderr
    assert [body["model"] for body in sent] == [ONE]
    assert DEFAULT_MODEL not in proc.stdout and DEFAULT_MODEL not in proc.stderr
    recorded = "".join(p.read_text() for p in (tmp_path / "sessions").rglob("*.jsonl"))
    assert ONE in recorded and DEFAULT_MODEL not in recorded


# The chat asks after its first frame (tests/app/test_server_model_after_frame.py); plain,
# exec, doctor and acp before the run, through settings_for.
def _settings(url: str, *flags: str, say=None):
    return settings_for(build_parser().parse_args(["--base-url", url, *flags]), say=say)[0]


def test_a_run_starts_on_the_servers_one_model_and_status_says_why():
    server, _ = llama_server([ONE])
    held: list[str] = []
    try:
        settings = _settings(server.url + "/v1", say=held.append)
    finally:
        server.close()
    assert settings.model == ONE and settings.applied["model"] == WHY
    assert held == []


def test_several_models_pick_none_and_say_so_once_with_the_picker():
    server, _ = llama_server(["a-model", "b-model"])
    held: list[str] = []
    try:
        settings = _settings(server.url + "/v1", say=held.append)
    finally:
        server.close()
    assert settings.model == DEFAULT_MODEL and "model" not in settings.applied
    assert len(held) == 1 and "2 models" in held[0] and "/model" in held[0]


def test_a_model_the_user_set_is_kept_and_the_list_never_asked():
    server, _ = llama_server([ONE])
    try:
        settings = _settings(server.url + "/v1", "--model", "mine")
    finally:
        server.close()
    assert settings.model == "mine"
    assert not any("/models" in line for line in server.requests)


def test_the_chats_boot_leaves_the_model_list_for_after_its_first_frame():
    server, _ = llama_server([ONE])
    try:
        ready = prepare(build_parser().parse_args(["--base-url", server.url + "/v1"]))
    finally:
        server.close()
    assert ready.settings.model == DEFAULT_MODEL and not any("/models" in line for line in server.requests)
