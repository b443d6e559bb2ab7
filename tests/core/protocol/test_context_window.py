"""Which listed model a name means, and where a window comes from."""

from __future__ import annotations

from helpers.mock_api import settings

from rivulet.core.protocol.context_window import SERVER, SETTING, TABLE, UNKNOWN, choose_window, listed_model
from rivulet.core.protocol.models import ModelInfo, parse_models

QWEN = ModelInfo("/models/qwen2.5-1.5b-instruct-q4_k_m.gguf", 16_384)
QWEN_CODER = ModelInfo("/models/qwen2.5-coder-7b-q4_k_m.gguf", 8_192)
GEMMA = ModelInfo("models/gemma-3-270m-q4_k_m.gguf", 2_048)


def test_a_server_that_lists_one_model_gives_its_window_whatever_the_name():
    for name in ("gpt-5.1-codex", "qwen", "anything"):
        assert listed_model(name, [QWEN]) is QWEN
    assert listed_model("qwen", [ModelInfo("/models/q.gguf")]) is None  # listed, but no window said


def test_several_models_are_matched_by_id_file_name_or_a_unique_prefix():
    listed = [QWEN, QWEN_CODER, GEMMA]
    assert listed_model(QWEN.id, listed) is QWEN
    assert listed_model("qwen2.5-1.5b-instruct-q4_k_m", listed) is QWEN
    assert listed_model("/elsewhere/qwen2.5-1.5b-instruct-q4_k_m.gguf", listed) is QWEN
    assert listed_model("GEMMA", listed) is GEMMA  # a prefix, whatever the case
    assert listed_model("qwen2.5-coder", listed) is QWEN_CODER
    assert listed_model("qwen", listed) is None  # two would do: no guess
    assert listed_model("llama", listed) is None
    assert listed_model("", listed) is None


def test_the_source_is_said():
    plain = settings(model="qwen")
    assert choose_window(plain, listed=[QWEN, QWEN_CODER, GEMMA]).source == TABLE
    assert choose_window(plain, listed=[QWEN, QWEN_CODER, GEMMA]).tokens == 32_768
    server = choose_window(plain, listed=[QWEN])
    assert (server.tokens, server.source, server.listed_as) == (16_384, SERVER, QWEN.id)
    assert server.describe() == f"the server's /models ({QWEN.id})"
    fixed = choose_window(settings(model="qwen", context_window=4_000), listed=[QWEN])
    assert (fixed.tokens, fixed.source) == (4_000, SETTING)
    unknown = choose_window(settings(model="mystery-model"), listed=[])
    assert (unknown.tokens, unknown.source) == (None, UNKNOWN) and "set context_window" in unknown.describe()


def test_llamas_n_ctx_is_the_window_not_its_training_context():
    listed = parse_models({"object": "list", "data": [
        {"id": QWEN.id, "object": "model", "meta": {"n_ctx": 16_384, "n_ctx_train": 32_768}}]})
    assert choose_window(settings(model="qwen"), listed=listed).tokens == 16_384
