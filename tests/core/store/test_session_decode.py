"""Reading a session file line by line (msgspec first, json for what only json wrote):
every record json would read is read, a line that is not JSON is skipped with a warning."""

from __future__ import annotations

import json

from rivulet.core.store.session import SessionWriter, load_session


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
