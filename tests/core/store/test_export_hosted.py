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
