"""Hosted tool items and an answer's sources in the Markdown export (issue 27), from a real
capture committed through the turn loop: the search's query, the numbered source as a
link; a code interpreter's code fenced, then its logs."""

from __future__ import annotations

from helpers.mock_api import serving, settings
from helpers.recorded import recording

from rivulet.core.store.export import to_markdown
from rivulet.core.store.session import Session, SessionMeta
from rivulet.core.turn.conversation import Conversation


async def _exported(name: str) -> str:
    conv = Conversation(settings(), serving(recording(name).body), project=None)
    await conv.run_turn("go")
    return to_markdown(Session(SessionMeta("s1", 0.0, "/w", "gpt-5", "http://x"), conv.history))


async def test_web_search_and_its_sources_are_exported():
    text = await _exported("test_openai_responses_web_search_citations_stream.1.sse")
    assert "### web search\n\n- query: Pydantic AI GitHub repository official\n" in text
    assert "Sources:\n\n1. [GitHub - pydantic/pydantic-ai" in text
    assert "](https://github.com/pydantic/pydantic-ai?utm_source=openai)\n" in text


async def test_code_interpreter_code_is_fenced_then_its_logs():
    text = await _exported("test_openai_responses_code_execution_download_file_stream.1.sse")
    assert "### code interpreter\n\n```python\nimport csv\n" in text
    assert "- '/mnt/data/numbers_and_squares.csv'\n" in text


async def test_the_files_an_answer_cites_are_exported_as_its_sources():
    text = await _exported("openai-file-search-tool.1.jsonl#1")
    assert "Sources:\n\n1. ai.pdf — file file-Ebzhf8H4DPGPr9pUhr7n7v\n" in text
    text = await _exported("test_openai_responses_code_execution_download_file_stream.1.sse")
    assert "1. numbers_and_squares.csv — code interpreter file cfile_6a503793ad68819185972c63815155f7 in container " \
           "cntr_6a50378a8e148190b261a3aa6ec9892c0075e4a12afea84e\n" in text
