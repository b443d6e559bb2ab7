"""The request knobs and hosted tools of issue 27 reach the request body only when set,
and a bad hosted tool is one clear line naming where it came from."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers.mock_api import serving, settings
from helpers.streams import simple_text_response

from rivulet.core import items as it
from rivulet.core.config import load_settings
from rivulet.core.errors import ConfigError
from rivulet.core.turn.conversation import Conversation


def _body(**kw) -> dict:
    return Conversation(settings(**kw), serving(simple_text_response("x")), project=None).build_request()


def test_unset_knobs_send_nothing_but_the_session_cache_key():
    body = _body()
    for key in ("background", "text", "service_tier", "truncation", "max_output_tokens"):
        assert key not in body
    assert body["store"] is False and len(body["prompt_cache_key"]) >= 16


def test_each_knob_goes_where_the_api_reads_it():
    body = _body(verbosity="low", service_tier="flex", truncation="auto", max_output_tokens=500,
                 prompt_cache_key="shared-key", background=True)
    assert body["text"] == {"verbosity": "low"}
    assert (body["service_tier"], body["truncation"], body["max_output_tokens"]) == ("flex", "auto", 500)
    assert body["prompt_cache_key"] == "shared-key"
    assert body["background"] is True and body["store"] is True  # background needs the server to keep it


def test_an_output_schema_is_the_text_format_beside_verbosity_and_not_the_summarys():
    """exec --output-schema (issue 40): `text.format`; a summary compaction's request is prose."""
    from rivulet.core.turn.compaction import compact

    fmt = {"type": "json_schema", "name": "out", "schema": {"type": "object"}, "strict": True}
    sent: list = []
    conv = Conversation(settings(verbosity="low", compaction="summary", compact_keep_turns=0),
                        serving(simple_text_response("a summary"), requests=sent), project=None)
    conv.text_format = fmt
    assert conv.build_request()["text"] == {"verbosity": "low", "format": fmt}
    conv.history.append(it.user_message("hello"), key="user-1")
    asyncio.run(compact(conv))
    [summary_request] = [json.loads(r.content) for r in sent]
    assert summary_request["text"] == {"verbosity": "low"}
    assert conv.build_request()["text"] == {"verbosity": "low", "format": fmt}  # the next turn's has it again


def test_the_session_cache_key_is_the_same_for_every_request_of_a_conversation_and_off_sends_none():
    conv = Conversation(settings(), serving(simple_text_response("x")), project=None)
    assert conv.build_request()["prompt_cache_key"] == conv.build_request()["prompt_cache_key"]
    assert "prompt_cache_key" not in _body(prompt_cache_key="off")


def test_hosted_tools_by_name_or_object_are_sent_and_tools_toggles_them():
    mcp = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example/sse", "require_approval": "always"}
    conv = Conversation(settings(hosted_tools=["web_search", "code_interpreter", mcp]),
                        serving(simple_text_response("x")), project=None)
    tools = conv.build_request()["tools"]
    hosted = [t for t in tools if t["type"] in ("web_search", "code_interpreter", "mcp")]
    assert hosted == [{"type": "web_search"}, {"type": "code_interpreter", "container": {"type": "auto"}}, mcp]
    assert conv.build_request()["include"] == ["reasoning.encrypted_content", "web_search_call.action.sources",
                                               "code_interpreter_call.outputs"]  # what the screen shows
    conv.hosted_off.add("mcp:docs")
    assert [t["type"] for t in conv.build_request()["tools"] if t["type"] == "mcp"] == []


@pytest.mark.parametrize(("value", "says"), [
    ('["web_searching"]', "unknown hosted tool 'web_searching'"),
    ('["file_search"]', "needs its options"),
    ('[{"type": "mcp", "server_label": "x"}]', "needs server_url"),
])
def test_a_bad_hosted_tool_is_one_line_naming_the_variable(monkeypatch, tmp_path, value, says):
    config = tmp_path / "config.toml"
    config.touch()
    monkeypatch.setenv("RIVULET_CONFIG", str(config))
    monkeypatch.setenv("RIVULET_HOSTED_TOOLS", value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert caught.value.message.startswith("bad $RIVULET_HOSTED_TOOLS: ") and says in caught.value.message
    assert "\n" not in caught.value.message
