"""Each provider preset's request: the URL (with its query), how the key goes (Bearer,
an api-key header, none) and from which variable, its extra headers, and the server
defaults it sets (patch tool, transport, incremental WebSocket)."""

from __future__ import annotations

import os
from contextlib import aclosing
from typing import get_args

import httpx
import pytest
from helpers.streams import simple_text_response

from rivulet.core.config import Settings, effective_patch_tool, load_settings
from rivulet.core.protocol.sse_transport import SseTransport
from rivulet.core.protocol.transports import wants_websocket
from rivulet.core.protocol.ws_transport import WebSocketTransport
from rivulet.core.providers import PRESETS, PROVIDER_NAMES

KEYS = {"OPENAI_API_KEY": "sk-openai-0001", "AZURE_OPENAI_API_KEY": "az-0002", "OPENROUTER_API_KEY": "or-0003",
        "VLLM_API_KEY": "vl-0004", "MY_KEY": "my-0005"}

# provider: (extra settings, URL of POST /responses, the auth header sent or None, patch tool, WebSocket?)
EXPECTED = {
    "openai": ({}, "https://api.openai.com/v1/responses", ("authorization", "Bearer sk-openai-0001"), "custom", True),
    "azure": ({"base_url": "https://res.openai.azure.com/openai"},
              "https://res.openai.azure.com/openai/responses?api-version=2025-04-01-preview", ("api-key", "az-0002"),
              "function", False),
    "openrouter": ({}, "https://openrouter.ai/api/v1/responses", ("authorization", "Bearer or-0003"), "function", False),
    "llamacpp": ({}, "http://127.0.0.1:8080/v1/responses", None, "function", False),
    "vllm": ({}, "http://127.0.0.1:8000/v1/responses", ("authorization", "Bearer vl-0004"), "function", False),
    "ollama": ({}, "http://127.0.0.1:11434/v1/responses", None, "function", False),
    "lmstudio": ({}, "http://127.0.0.1:1234/v1/responses", None, "function", False),
    "custom": ({"base_url": "https://example.test/v1", "api_key_env": "MY_KEY"}, "https://example.test/v1/responses",
               ("authorization", "Bearer my-0005"), "function", False),
}


@pytest.fixture
def keys(tmp_path, monkeypatch):
    for name in list(os.environ):
        if name.startswith(("RIVULET_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("RIVULET_SESSIONS_DIR", str(tmp_path / "sessions"))
    (tmp_path / "config.toml").write_text("")
    monkeypatch.setenv("RIVULET_CONFIG", str(tmp_path / "config.toml"))
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)


def test_every_preset_is_a_provider_value_and_has_an_example():
    assert set(EXPECTED) == set(PROVIDER_NAMES) == set(get_args(get_args(Settings.model_fields["provider"]
                                                                        .annotation)[0]))
    assert all(f'provider = "{p.name}"' in p.example for p in PRESETS.values())


@pytest.mark.parametrize("provider", sorted(EXPECTED))
async def test_the_request_of_each_preset(keys, provider):
    extra, url, auth, patch_tool, websocket = EXPECTED[provider]
    settings = load_settings(overrides=[f"provider={provider}", *(f"{k}={v}" for k, v in extra.items())])
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=simple_text_response("hi"))

    transport = SseTransport(settings, httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    async with aclosing(transport.stream({"model": settings.model, "input": []})) as events:
        async for _ in events:
            pass
    await transport.aclose()
    request = seen[0]
    assert str(request.url) == url
    headers = {k.lower(): v for k, v in request.headers.items()}
    sent = {k: v for k, v in headers.items() if k in ("authorization", "api-key")}
    assert sent == (dict([auth]) if auth else {})
    assert "sk-openai-0001" not in str(headers) or provider == "openai"  # OpenAI's key goes to OpenAI alone
    assert (headers.get("x-title") == "rivulet") is (provider == "openrouter")
    assert effective_patch_tool(settings) == patch_tool
    assert wants_websocket(settings) is websocket
    if provider != "custom":  # custom presets nothing: the default stands
        assert settings.ws_incremental is websocket


def test_azure_needs_its_base_url(keys):
    from rivulet.core.errors import ConfigError

    with pytest.raises(ConfigError, match="provider 'azure' needs base_url"):
        load_settings(overrides=["provider=azure"])


def test_query_reaches_the_websocket_and_merges_with_the_urls_own():
    ws = WebSocketTransport(Settings(base_url="https://h.test/openai?x=1", query={"api-version": "v9"}))
    assert ws.url == "wss://h.test/openai/responses?x=1&api-version=v9"
    assert WebSocketTransport(Settings(base_url="http://127.0.0.1:8000/v1/")).url == "ws://127.0.0.1:8000/v1/responses"


def test_a_users_setting_beats_the_presets(keys):
    settings = load_settings(overrides=["provider=azure", "base_url=https://r.openai.azure.com/openai",
                                        "query.api-version=2024-10-21", "auth=bearer", "transport=ws"])
    assert settings.query == {"api-version": "2024-10-21"}
    assert settings.auth_headers() == {"Authorization": "Bearer az-0002"}
    assert wants_websocket(settings)


def test_local_runners_offer_no_subagents_unless_the_user_turns_them_on(keys):
    """Small local models call spawn_agent for everything (issue 42's field run)."""
    for provider in ("llamacpp", "ollama", "lmstudio"):
        assert not load_settings(overrides=[f"provider={provider}"]).subagents
        assert load_settings(overrides=[f"provider={provider}", "subagents=true"]).subagents
    assert all(load_settings(overrides=[f"provider={p}"] + (["base_url=https://r.test/openai"] if p == "azure" else [])
                             ).subagents for p in ("openai", "azure", "openrouter", "vllm", "custom"))


def test_no_command_the_model_runs_sees_any_presets_key(keys):
    """A preset's key variable is a secret even when another profile is active."""
    from rivulet.core.tools.shell import SECRET_ENV, child_env

    names = {p.settings["api_key_env"] for p in PRESETS.values() if "api_key_env" in p.settings}
    assert names <= set(SECRET_ENV)
    env = child_env()
    assert not names & set(env) and "OPENAI_API_KEY" not in env
