"""`rivulet exec` prints an answer's sources after it, as the chat shows them (web pages and
files, numbered), and `--json` carries them in turn.completed; real captures replayed by a
local server."""

from __future__ import annotations

import json

from helpers.aimock import rivulet
from helpers.canned_server import CannedServer
from helpers.recorded import recording


def _exec(tmp_path, capture: str, *flags: str):
    with CannedServer(recording(capture).body) as server:
        return rivulet("exec", *flags, "--base-url", server.base_url, "go", env={"RIVULET_SESSIONS_DIR": str(tmp_path)})


def test_the_files_an_answer_cites_are_printed_after_it(tmp_path):
    proc = _exec(tmp_path, "openai-file-search-tool.1.jsonl#1")
    assert proc.returncode == 0, proc.stderr
    answer, _, sources = proc.stdout.rpartition("\n\nSources\n")
    assert answer.strip() and "ai.pdf" not in answer.splitlines()[-1]
    assert sources == "[1] ai.pdf — file file-Ebzhf8H4DPGPr9pUhr7n7v\n"


def test_json_carries_the_sources_in_turn_completed(tmp_path):
    proc = _exec(tmp_path, "test_openai_responses_web_search_citations_stream.1.sse", "--json")
    assert proc.returncode == 0, proc.stderr
    done = [json.loads(line) for line in proc.stdout.splitlines()][-1]
    assert done["type"] == "turn.completed"
    assert done["sources"] == [{
        "number": 1, "kind": "url", "title": "GitHub - pydantic/pydantic-ai: AI Agent Framework, the Pydantic way · GitHub",
        "url": "https://github.com/pydantic/pydantic-ai?utm_source=openai",
        "link": "https://github.com/pydantic/pydantic-ai?utm_source=openai", "file_id": None, "container_id": None}]
