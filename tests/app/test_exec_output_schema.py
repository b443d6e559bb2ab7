"""`rivulet exec --output-schema FILE` (issue 40): the schema sent as the request's
`text.format`, stdout exactly the answer's JSON; an answer that does not parse or match is
exit 1 with one line saying where; a bad schema file is exit 2 before any request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers.local_server import LocalServer, Reply, Request, sse_reply
from helpers.streams import simple_text_response

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "people": {"type": "integer"}},
          "required": ["city", "people"], "additionalProperties": False}


def run(tmp_path: Path, schema_file: Path, answer: str) -> tuple[subprocess.CompletedProcess, list[Request]]:
    def reply(request: Request) -> Reply | None:
        return sse_reply(simple_text_response(answer)) if request.method == "POST" else None

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_CONFIG": os.devnull, "RIVULET_SESSIONS_DIR": str(tmp_path / "s"), "HOME": str(tmp_path),
                "RIVULET_CHECKPOINTS_DIR": str(tmp_path / "checkpoints")})
    with LocalServer(reply) as server:
        proc = subprocess.run([sys.executable, "-m", "rivulet.app", "exec", "--base-url", server.base_url,
                               "--output-schema", str(schema_file), "the biggest city?"],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    return proc, [r for r in server.requests if r.method == "POST"]


def schema_file(tmp_path: Path, content: str, name: str = "city answer.json") -> Path:
    path = tmp_path / name
    path.write_text(content)
    return path


def test_the_schema_is_the_requests_text_format_and_stdout_is_the_answers_json(tmp_path):
    answer = '{"city": "Tokyo", "people": 37400000}'
    proc, requests = run(tmp_path, schema_file(tmp_path, json.dumps(SCHEMA)), answer)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, answer + "\n", "")
    [request] = requests
    assert request.json()["text"] == {"format": {"type": "json_schema", "name": "city_answer", "schema": SCHEMA,
                                                 "strict": True}}


def test_an_answer_that_does_not_match_or_parse_is_exit_1_saying_where(tmp_path):
    path = schema_file(tmp_path, json.dumps(SCHEMA))
    proc, _ = run(tmp_path, path, '{"city": "Tokyo", "people": "many"}')
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == ("rivulet: error: the answer does not match the schema at $.people: 'many' is not of "
                           "type 'integer'\n")
    proc, _ = run(tmp_path, path, "Tokyo, with 37 million people.")
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == "rivulet: error: the answer is not JSON: Expecting value: line 1 column 1 (char 0)\n"


def test_a_bad_schema_file_is_exit_2_before_any_request(tmp_path):
    for content, said in [("{not json", "is not JSON: Expecting property name enclosed in double quotes"),
                          ("[1, 2]", "a JSON Schema is an object, not list"),
                          ('{"type": "strin"}', "is not a JSON Schema: at $.type: 'strin' is not valid under")]:
        proc, requests = run(tmp_path, schema_file(tmp_path, content), "{}")
        assert (proc.returncode, proc.stdout, requests) == (2, "", []), content
        assert said in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    proc, requests = run(tmp_path, tmp_path / "missing.json", "{}")
    assert (proc.returncode, requests) == (2, []) and "missing.json: No such file or directory" in proc.stderr
