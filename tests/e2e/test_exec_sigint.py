"""SIGINT to `rivulet exec --json` with no terminal (a script or CI stopping it), while the
answer streams (issue 23.3; with a terminal and at the approval prompt:
tests/terminal/test_exec_interrupt.py): one `rivulet: interrupted` line, exit status 130,
the JSON stream ends with `turn.interrupted`, and no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from terminal.stream_server import StreamServer, paragraphs


def test_sigint_while_streaming_with_json_output(tmp_path):
    server = StreamServer().start()
    server.answer_with(lambda prompt: paragraphs(200), words_per_second=2, reasoning="Thinking it over.")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_CONFIG": os.devnull, "RIVULET_SESSIONS_DIR": str(tmp_path / "sessions")})
    proc = subprocess.Popen([sys.executable, "-m", "rivulet.app", "exec", "--json", "a long story",
                             "--base-url", server.base_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, env=env)
    try:
        seen = []
        assert proc.stdout is not None
        for line in proc.stdout:  # until the reasoning is committed and the message streams
            seen.append(json.loads(line))
            if seen[-1]["type"] == "item.delta" and seen[-1]["kind"] == "output_text":
                break
        proc.send_signal(signal.SIGINT)
        rest, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.stop()
    events = seen + [json.loads(line) for line in rest.splitlines()]
    assert proc.returncode == 130, stderr
    assert stderr == "rivulet: interrupted\n"
    assert events[-1]["type"] == "turn.interrupted" and events[-1]["taken_back"] is None
    committed = [e["item"]["type"] for e in events if e["type"] == "item.completed"]
    assert committed[:2] == ["message", "reasoning"] and committed[-1] == "message"  # the note to the model
