"""Model lists (GET /models, the configured fallback), context windows and what is left,
and switching the model mid-conversation."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.mock_api import serving, settings
from helpers.streams import (
    body,
    completed,
    created,
    message,
    message_events,
    reasoning,
    reasoning_events,
    simple_text_response,
)

from rivulet.core.protocol import models
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn import usage
from rivulet.core.turn.conversation import Conversation
from rivulet.core.turn.tool_api import NoTools

# What llama.cpp's llama-server answers (trimmed), with the window it was started with.
LLAMA_MODELS = {"models": [{"name": "/m/qwen.gguf", "model": "/m/qwen.gguf"}], "object": "list",
                "data": [{"id": "/m/qwen.gguf", "object": "model", "owned_by": "llamacpp",
                          "meta": {"n_ctx": 16384, "n_ctx_train": 32768}}]}


def _client(handler) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def _answer(status: int, content: bytes | str, ctype: str = "application/json"):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(status, content=content, headers={"content-type": ctype})

    return seen, _client(handler)


# ---- listing ---------------------------------------------------------------------------


async def test_the_server_list_is_fetched_with_auth_sorted_and_deduplicated():
    data = {"object": "list", "data": [{"id": "gpt-b", "owned_by": "openai"}, {"id": "gpt-a"}, {"id": "gpt-b"},
                                       {"id": 7}, "junk", {"name": "no id"}]}
    seen, client = _answer(200, json.dumps(data))
    got = await models.list_models(settings(headers={"OpenAI-Project": "p1"}), client)
    assert got.source == "server" and got.error is None
    assert got.ids == ["gpt-a", "gpt-b"]
    assert got.models[1].owned_by == "openai"
    assert str(seen[0].url) == "http://test.invalid/v1/models" and seen[0].method == "GET"
    assert seen[0].headers["authorization"] == "Bearer sk-test-secret-key-123456"
    assert seen[0].headers["openai-project"] == "p1"


async def test_a_local_server_reports_its_running_window():
    _, client = _answer(200, json.dumps(LLAMA_MODELS))
    got = await models.list_models(settings(), client)
    assert got.models == [models.ModelInfo("/m/qwen.gguf", 16384, "llamacpp")]
    # The server's own figure beats the table (which says 32k for qwen).
    assert models.context_window(settings(), "/m/qwen.gguf", got.models[0].context_window) == 16384


@pytest.mark.parametrize("status, content, ctype, expected", [
    (502, "<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>", "text/html",
     "http://test.invalid/v1/models: HTTP 502: 502 Bad Gateway"),
    (401, json.dumps({"error": {"message": "Incorrect API key provided: sk-test-s*****", "code": "invalid_api_key"}}),
     "application/json", "http://test.invalid/v1/models: HTTP 401: Incorrect API key provided: [redacted]*****"),
    (200, "<!doctype html><html><title>Login</title></html>", "text/html",
     "http://test.invalid/v1/models did not answer with JSON: 'Login'"),
    (200, json.dumps({"object": "list"}), "application/json",
     "http://test.invalid/v1/models: the server's model list has no 'data' array"),
])
async def test_errors_are_one_line_and_fall_back_to_the_configured_list(status, content, ctype, expected):
    _, client = _answer(status, content, ctype)
    got = await models.list_models(settings(models=["local-a", "local-b", "local-a"]), client)
    assert got.source == "config" and got.ids == ["local-a", "local-b"]
    assert got.error == expected


async def test_without_a_configured_list_the_error_is_raised_and_says_what_to_do():
    _, client = _answer(404, "Not Found", "text/plain")
    with pytest.raises(models.ModelsError) as caught:
        await models.list_models(settings(), client)
    assert str(caught.value) == ("http://test.invalid/v1/models: HTTP 404: Not Found; "
                                 "set `models` in the config file to choose from a list")


async def test_an_empty_server_list_falls_back_too():
    _, client = _answer(200, json.dumps({"data": []}))
    got = await models.list_models(settings(models=["mine"]), client)
    assert got.ids == ["mine"] and got.error == "http://test.invalid/v1/models listed no models"


@pytest.mark.parametrize("exc, words", [(httpx.ConnectError("refused"), "cannot ask"),
                                        (httpx.ReadTimeout("slow"), "timed out asking")])
async def test_network_failures_are_one_line_without_the_key(exc, words):
    def handler(request):
        raise exc

    got = await models.list_models(settings(models=["m"]), _client(handler))
    assert got.error is not None and got.error.startswith(words) and "\n" not in got.error
    assert "sk-test" not in got.error


async def test_a_query_in_the_base_url_stays_a_query_and_never_reaches_the_error():
    """Azure's base URLs carry `?api-version=...`; /models goes on the path, before it."""
    s = settings(base_url="http://user:sk-abcdefghijkl@test.invalid/v1?api-version=1&key=sk-abcdefghijkl")
    seen, client = _answer(500, "boom", "text/plain")
    with pytest.raises(models.ModelsError) as caught:
        await models.list_models(s, client)
    assert seen[0].url.path == "/v1/models" and seen[0].url.params["api-version"] == "1"
    assert "sk-abc" not in str(caught.value) and "test.invalid/v1/models: HTTP 500: boom" in str(caught.value)


# ---- context windows ----------------------------------------------------------------------


@pytest.mark.parametrize("model, window", [
    ("gpt-5.1-codex", 272_000), ("gpt-5-mini", 272_000), ("gpt-5-chat-latest", 128_000),
    ("gpt-4.1-mini", 1_047_576), ("gpt-4o", 128_000), ("o3", 200_000), ("o4-mini", 200_000),
    ("o1-mini", 128_000), ("openai/gpt-oss-20b", 131_072), ("gpt-oss-120b", 131_072),
    ("Qwen/Qwen2.5-Coder-1.5B-Instruct", 32_768), ("/work/peer/models/qwen-coder-1.5b.gguf", 32_768),
    ("Qwen3-30B-A3B-Instruct-2507", 262_144), ("meta-llama/Llama-3.1-8B-Instruct", 131_072),
    ("llama-2-7b", 4_096), ("tinyllama", 8_192), ("mystery-model", None),
])
def test_known_context_windows(model, window):
    assert models.known_context_window(model) == window


def test_the_setting_beats_the_server_which_beats_the_table():
    assert models.context_window(settings(model="gpt-4o")) == 128_000
    assert models.context_window(settings(model="gpt-4o"), reported=64_000) == 64_000
    assert models.context_window(settings(model="gpt-4o", context_window=8_000), reported=64_000) == 8_000
    assert models.context_window(settings(model="unknown")) is None


def test_context_left_in_percent():
    assert usage.context_left({"input_tokens": 100_000, "output_tokens": 36_000, "total_tokens": 136_000},
                               272_000) == 50
    assert usage.context_left({"input_tokens": 999, "output_tokens": 1}, 4_000) == 75  # no total: summed
    assert usage.context_left({"total_tokens": 5_000}, 4_000) == 0  # over the window: clamped
    assert usage.context_left({"total_tokens": 1}, 4_000) == 99  # rounded down: never overstated
    assert usage.context_left(None, 4_000) is None
    assert usage.context_left({"total_tokens": 10}, None) is None
    assert usage.context_left({"total_tokens": True}, 100) is None  # a hostile type is not a number


async def test_a_conversation_remembers_the_last_response_usage():
    usage = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    conv = Conversation(settings(), serving(simple_text_response("hi", usage=usage)))
    await conv.run_turn("hello")
    assert conv.last_usage == usage


# ---- switching models -------------------------------------------------------------------


def _reasoned(rid: str, enc: str, mid: str, text: str) -> bytes:
    return body([created(rid), *reasoning_events(f"rs_{rid}", "thought", 0, encrypted=enc),
                 *message_events(mid, text, 1),
                 completed([reasoning(f"rs_{rid}", "thought", enc), message(mid, text)], rid)])


async def test_a_switch_changes_the_model_and_drops_only_the_old_models_encrypted_reasoning(tmp_path):
    requests: list[httpx.Request] = []
    writer = SessionWriter.create(model="model-a", base_url="http://x", directory=tmp_path)[0]
    conv = Conversation(settings(model="model-a"), serving(_reasoned("r1", "ENC-A", "m1", "one"),
                                                           _reasoned("r2", "ENC-B", "m2", "two"),
                                                           simple_text_response("three", "r3", "m3"),
                                                           requests=requests), session=writer)
    await conv.run_turn("first")
    conv.set_model("model-b")
    assert conv.settings.model == "model-b"
    await conv.run_turn("second")
    conv.set_model("model-a")
    await conv.run_turn("third")
    sent = [json.loads(r.content) for r in requests]
    assert [s["model"] for s in sent] == ["model-a", "model-b", "model-a"]
    second = sent[1]["input"]
    assert [i["type"] for i in second] == ["message", "message", "message"]  # ENC-A left out, its answer kept
    assert "ENC-A" not in json.dumps(second)
    third = sent[2]["input"]
    # Back on model-a: its own reasoning goes again, model-b's does not.
    assert [i.get("encrypted_content") for i in third if i["type"] == "reasoning"] == ["ENC-A"]
    assert len(conv.history) == 8  # history itself keeps everything
    # The session file records the switches; a resumed conversation knows who made what.
    writer.close()
    loaded = load_session(writer.path)
    assert loaded.history.models == [(0, "model-a"), (3, "model-b"), (6, "model-a")]
    assert loaded.warnings == []
    resumed = Conversation(settings(model="model-b"), serving(simple_text_response("x")), history=loaded.history)
    resent = resumed.build_request()["input"]
    assert [i.get("encrypted_content") for i in resent if i["type"] == "reasoning"] == ["ENC-B"]


async def test_a_switch_mid_turn_applies_from_the_next_request():
    from helpers.streams import call, call_events

    class Tools(NoTools):
        def specs(self):
            return [{"type": "function", "name": "f", "parameters": {}}]

        async def run(self, c):
            conv.set_model("model-b")  # e.g. the user picked a model while a tool ran
            return {"type": "function_call_output", "call_id": c["call_id"], "output": "done"}

    first = body([created("r1"), *reasoning_events("rs_1", "t", 0, encrypted="ENC-A"),
                  *call_events("fc_1", "call_1", "f", "{}", 1),
                  completed([reasoning("rs_1", "t", "ENC-A"), call("fc_1", "call_1", "f", "{}")], "r1")])
    requests: list[httpx.Request] = []
    conv = Conversation(settings(model="model-a"), serving(first, simple_text_response("ok", "r2"), requests=requests),
                        tools=Tools())
    await conv.run_turn("go")
    sent = [json.loads(r.content) for r in requests]
    assert [s["model"] for s in sent] == ["model-a", "model-b"]
    follow_up = sent[1]["input"]
    assert [i["type"] for i in follow_up] == ["message", "function_call", "function_call_output"]


def test_truncating_before_a_switch_keeps_the_new_model_for_what_follows():
    from rivulet.core.turn.history import History

    h = History()
    h.set_model("a", record=False)
    for n in range(4):
        h.append({"type": "message", "role": "user", "content": f"{n}"})
    h.set_model("b")
    h.append({"type": "message", "role": "user", "content": "x"})
    h.truncate(2)
    assert h.models == [(0, "a"), (2, "b")]
    assert h.model_at(1) == "a" and h.model_at(2) == "b"
