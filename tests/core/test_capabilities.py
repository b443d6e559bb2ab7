"""The capability cache's file: written atomically, bounded, read as untrusted, and
applied beneath what the user set."""

from __future__ import annotations

import json
import os

import pytest

from rivulet.core import capabilities as caps
from rivulet.core.config import load_settings


@pytest.fixture
def clean(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith(("RIVULET_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "data" / "sessions"))
    (tmp_path / "config.toml").write_text("")
    monkeypatch.setenv("RIVULET_CONFIG", str(tmp_path / "config.toml"))
    return tmp_path


def _entry(url: str = "http://127.0.0.1:8080/v1", fp: str = "f" * 16, at: float = 1000.0, **settings) -> caps.ServerCapabilities:
    return caps.ServerCapabilities(url, fp, at, settings or {"patch_tool": "function", "transport": "sse"},
                      {"patch_tool": "no custom tool call came back"}, [{"name": "plain text", "ok": True, "detail": "hi"}])


def test_the_file_sits_beside_the_sessions_and_round_trips(clean):
    caps.store(_entry())
    assert caps.cache_path() == clean / "data" / "servers.json"
    assert oct(caps.cache_path().stat().st_mode & 0o777) == "0o600"
    found = caps.lookup("http://127.0.0.1:8080/v1/")
    assert found is not None and found.settings == {"patch_tool": "function", "transport": "sse"}
    assert caps.lookup("http://127.0.0.1:8080/v1", "0" * 16) is None  # another model list: not this entry
    assert [p.name for p in caps.cache_path().parent.iterdir()] == ["servers.json"]  # no temporary file left


def test_one_entry_per_server_and_at_most_max_servers(clean, monkeypatch):
    monkeypatch.setattr(caps, "MAX_SERVERS", 3)
    for n in range(5):
        caps.store(_entry(f"http://127.0.0.1:{8000 + n}/v1", at=1000.0 + n))
    caps.store(_entry("http://127.0.0.1:8004/v1", fp="a" * 16, at=2000.0))
    entries = caps.load()
    assert sorted(e.url for e in entries.values()) == [f"http://127.0.0.1:{p}/v1" for p in (8002, 8003, 8004)]
    assert caps.lookup("http://127.0.0.1:8004/v1").fingerprint == "a" * 16


@pytest.mark.parametrize("text", ["not json", "[]", '{"servers": 5}', '{"servers": [1, "x", {"url": 3}]}',
                                  "\0" * 10])
def test_a_broken_file_is_empty(clean, text):
    caps.cache_path().parent.mkdir(parents=True)
    caps.cache_path().write_text(text)
    assert caps.load() == {}
    caps.store(_entry())  # and is replaced by a good one
    assert len(caps.load()) == 1


def test_a_huge_or_odd_file_is_not_read(clean, monkeypatch):
    caps.cache_path().parent.mkdir(parents=True)
    caps.cache_path().write_text('{"servers": []}' + " " * (caps.MAX_BYTES + 1))
    assert caps.load() == {}
    caps.cache_path().unlink()
    os.mkfifo(caps.cache_path())  # would block a plain open() forever
    assert caps.load() == {}


def test_hostile_values_are_dropped_and_text_is_cut(clean):
    raw = {"servers": [{"url": "http://127.0.0.1:8080/v1", "fingerprint": "f", "probed_at": 1.0,
                        "settings": {"patch_tool": "function", "transport": "carrier-pigeon", "ws_incremental": 1,
                                     "sandbox": "off", "approval": "never-ask", "reasoning_summary": "off"},
                        "reasons": {"patch_tool": "x" * 10_000, "sandbox": "because"},
                        "probes": [{"name": "\x1b]52;c;aGk=\x07p", "ok": "yes", "detail": "d" * 10_000}] * 50}]}
    caps.cache_path().parent.mkdir(parents=True)
    caps.cache_path().write_text(json.dumps(raw))
    entry = caps.lookup("http://127.0.0.1:8080/v1")
    assert entry.settings == {"patch_tool": "function", "reasoning_summary": "off"}  # never sandbox or approval
    assert set(entry.reasons) == {"patch_tool"} and len(entry.reasons["patch_tool"]) == caps.DETAIL_CHARS
    assert len(entry.probes) == 16 and entry.probes[0]["ok"] is None
    assert len(entry.probes[0]["detail"]) == caps.DETAIL_CHARS


def test_applied_beneath_what_the_user_set(clean):
    entry = _entry(patch_tool="function", transport="ws", ws_incremental=False)
    settings = load_settings(base_url="http://127.0.0.1:8080/v1", overrides=["transport=sse"])
    applied = caps.apply(settings, entry)
    assert settings.transport == "sse" and "transport" not in applied  # the user's -c wins
    assert (settings.patch_tool, settings.ws_incremental) == ("function", False)
    assert applied["patch_tool"].startswith("no custom tool call came back (probed 19")
    assert settings.applied == applied
    assert load_settings(base_url="http://127.0.0.1:8080/v1").applied == {}  # a fresh load applies nothing itself


def test_openai_and_the_off_switch_are_never_probed(clean, monkeypatch):
    assert not caps.wants_probe(load_settings(api_key="sk-x"))
    assert not caps.wants_probe(load_settings(base_url="https://proxy.test/v1", overrides=["provider=openai"]))
    assert caps.wants_probe(load_settings(base_url="http://127.0.0.1:8080/v1"))
    monkeypatch.setenv("RIVULET_PROBE_SERVERS", "false")
    assert not caps.wants_probe(load_settings(base_url="http://127.0.0.1:8080/v1"))
