"""Reading a session file line by line (msgspec first, json for what only json wrote):
every record json would read is read, a line that is not JSON is skipped with a warning."""

from __future__ import annotations

import json

import pytest

from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn.history import History


def _item(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_records_json_wrote_are_read_and_garbage_is_skipped(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path)
    writer.close()
    with meta.path.open("a") as f:
        f.write(json.dumps({"type": "item", "item": _item("first")}) + "\n")
        # json.dumps writes NaN for a float nan (a usage figure, say); msgspec refuses it.
        f.write(json.dumps({"type": "item", "item": {**_item("second"), "score": float("nan")}}) + "\n")
        f.write("{not json\n")
        f.write(json.dumps({"type": "item", "item": _item("third é ✓")}, ensure_ascii=False) + "\n")
    session = load_session(meta.path)
    texts = [i["content"][0]["text"] for i in session.history.items]
    assert texts == ["first", "second", "third é ✓"]
    assert any("not JSON" in w for w in session.warnings)


def test_records_are_written_as_compact_utf8_json_the_same_bytes_as_before(tmp_path):
    """msgspec writes the records now (exec's 10,000 items spent a tenth of the run in
    json.dumps): files read by older builds and by other tools must not change."""
    hostile = [
        _item("plain"),
        _item("é ✓ 東京 \U0001f600 \u2028 \u2029 \x00 \x1b[31m \r\n \t \" \\ </script>"),
        {"type": "function_call", "call_id": "c", "name": "t", "arguments": '{"a": [1, 2.5, -3e-7]}',
         "big": 10**30, "neg": -(2**63), "flags": [True, False, None], "nested": {"1": {"x": []}}},
    ]
    writer, meta = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path)
    for n, item in enumerate(hostile):
        writer.observe("append", History().append(item, f"seg{n}", f"k{n}", at=1.5))
    writer.close()
    lines = meta.path.read_bytes().split(b"\n")[1:-1]
    records = [json.loads(line) for line in lines]
    assert [r["item"] for r in records] == hostile
    assert lines == [json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() for r in records]
    assert b"\n" not in b"".join(lines) and b"\xe2\x80\xa8" in lines[1]  # U+2028 as UTF-8, not a line break


def test_a_nan_is_written_as_null_and_the_line_is_json_every_reader_takes(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="http://test.invalid/v1", directory=tmp_path)
    writer.observe("append", History().append({**_item("scored"), "score": float("nan")}, at=1.0))
    writer.close()
    line = meta.path.read_bytes().split(b"\n")[1]
    assert json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))["item"]["score"] is None
    assert [i["content"][0]["text"] for i in load_session(meta.path).history.items] == ["scored"]
