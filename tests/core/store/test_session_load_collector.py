"""Reading a session file does not run the garbage collector over what it has read so far
(issue 36.9): its records are plain dicts and lists that live as long as the chat, and a
collection every few hundred of them walked the ones already read again and again (~40 %
of a 20,000-turn session's load)."""

from __future__ import annotations

import gc
import json

from rivulet.core.store.session import FORMAT, load_session


def long_file(path, turns: int):
    lines = [{"type": "session", "format": FORMAT, "id": "s", "created": 1.0, "cwd": "/", "model": "m",
              "base_url": "u"}]
    for n in range(turns):
        lines.append({"type": "item", "seq": 2 * n, "key": f"user-{n + 1}", "segment": None, "time": 1.0,
                      "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]}})
        lines.append({"type": "item", "seq": 2 * n + 1, "key": f"m{n}", "segment": f"req-{n + 1}", "time": 1.0,
                      "item": {"id": f"m{n}", "type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": f"answer {n}", "annotations": []}]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_loading_a_long_session_runs_no_collection_midway(tmp_path):
    path = long_file(tmp_path / "s.jsonl", 2000)
    started: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(info["generation"])

    assert gc.isenabled()
    gc.collect()
    gc.callbacks.append(note)
    try:
        session = load_session(path)
    finally:
        gc.callbacks.remove(note)
    assert len(session.history) == 4000
    assert len(started) <= 1  # the one due, once it is on again; main: 25, one every few hundred records
    assert gc.isenabled()  # and on again after it


def test_a_collector_switched_off_stays_off(tmp_path):
    path = long_file(tmp_path / "s.jsonl", 3)
    gc.disable()
    try:
        load_session(path)
        assert not gc.isenabled()
    finally:
        gc.enable()
