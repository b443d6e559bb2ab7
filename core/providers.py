"""Provider presets: `provider = "azure"` and the settings that server needs, so a
profile is one line.

A preset sits beneath everything the user sets (defaults < preset < file < profile <
environment < -c < flags): it only fills in what was not said. Each names how the key
is sent (`auth`), the variable it is read from (`api_key_env`; a key never lives in a
file), query parameters, extra headers, and what the server is known to handle: the
patch tool, the transport, and whether `previous_response_id` (incremental WebSocket
requests) works. No pydantic here: `config_sources.peek` reads it before the first frame.
"""

from __future__ import annotations

from typing import Any

import msgspec

# OpenRouter's attribution: the app's name (X-Title). Its HTTP-Referer is a site URL, which
# rivulet has none of: a user with one adds it with `headers`.
ATTRIBUTION = {"X-Title": "rivulet"}

# The desktop runners of local models (llama.cpp, Ollama, LM Studio) mostly serve small
# models, which call spawn_agent for everything and whose subagents loop (a 1.5B model on
# llama-server, issue 42's field run): subagents are off there unless the user turns them on.
LOCAL_RUNNER: dict[str, Any] = {"subagents": False}


class Preset(msgspec.Struct, frozen=True, dict=True):
    name: str
    about: str  # one line, for /status, doctor --report and the README
    settings: dict[str, Any] = msgspec.field(default_factory=dict)  # beneath the user's own values
    example: str = ""  # the one-line profile that reaches it
    needs_base_url: bool = False  # no default address (Azure's is per resource)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("openai", "OpenAI's API: Bearer key, custom (grammar) patch tool, WebSocket, previous_response_id",
           {"base_url": "https://api.openai.com/v1", "auth": "bearer", "patch_tool": "custom",
            "transport": "auto", "ws_incremental": True},
           '[profiles.openai]\nprovider = "openai"'),
    Preset("azure", "Azure OpenAI: an api-key header from $AZURE_OPENAI_API_KEY, api-version in the query, SSE",
           {"auth": "api-key", "api_key_env": "AZURE_OPENAI_API_KEY", "query": {"api-version": "2025-04-01-preview"},
            "patch_tool": "function", "transport": "sse", "ws_incremental": False, "compaction": "summary"},
           '[profiles.azure]\nprovider = "azure"\nbase_url = "https://RESOURCE.openai.azure.com/openai"\n'
           'model = "DEPLOYMENT"', needs_base_url=True),
    Preset("openrouter", "OpenRouter: Bearer key from $OPENROUTER_API_KEY, its attribution header, stateless, SSE",
           {"base_url": "https://openrouter.ai/api/v1", "auth": "bearer", "api_key_env": "OPENROUTER_API_KEY",
            "headers": dict(ATTRIBUTION), "patch_tool": "function",
            "transport": "sse", "ws_incremental": False, "compaction": "summary"},
           '[profiles.openrouter]\nprovider = "openrouter"\nmodel = "openai/gpt-5.1-codex"'),
    Preset("llamacpp", "llama.cpp's llama-server: no key, the JSON function patch tool (custom tools are dropped), SSE",
           {"base_url": "http://127.0.0.1:8080/v1", "auth": "none", "patch_tool": "function", "transport": "sse",
            "ws_incremental": False, "compaction": "summary", **LOCAL_RUNNER},
           '[profiles.llama]\nprovider = "llamacpp"'),
    Preset("vllm", "vLLM: Bearer key from $VLLM_API_KEY when it has one, the function patch tool, SSE",
           {"base_url": "http://127.0.0.1:8000/v1", "auth": "bearer", "api_key_env": "VLLM_API_KEY",
            "patch_tool": "function", "transport": "sse", "ws_incremental": False, "compaction": "summary"},
           '[profiles.vllm]\nprovider = "vllm"\nmodel = "openai/gpt-oss-20b"'),
    Preset("ollama", "Ollama: no key, the function patch tool, SSE",
           {"base_url": "http://127.0.0.1:11434/v1", "auth": "none", "patch_tool": "function", "transport": "sse",
            "ws_incremental": False, "compaction": "summary", **LOCAL_RUNNER},
           '[profiles.ollama]\nprovider = "ollama"\nmodel = "gpt-oss:20b"'),
    Preset("lmstudio", "LM Studio: no key, the function patch tool, SSE",
           {"base_url": "http://127.0.0.1:1234/v1", "auth": "none", "patch_tool": "function", "transport": "sse",
            "ws_incremental": False, "compaction": "summary", **LOCAL_RUNNER},
           '[profiles.lmstudio]\nprovider = "lmstudio"\nmodel = "openai/gpt-oss-20b"'),
    Preset("custom", "any other Responses server: nothing preset, every setting is yours", {},
           '[profiles.mine]\nprovider = "custom"\nbase_url = "https://example.test/v1"\napi_key_env = "MY_KEY"'),
)}
PROVIDER_NAMES = tuple(PRESETS)
