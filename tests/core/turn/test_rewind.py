"""Edit and resend, core side: history cut back to before a user message, the message
handed back as a draft, the cut recorded in the session file with the old branch kept."""

from __future__ import annotations

import json

import httpx
import pytest
from helpers.images import PNG
from helpers.mock_api import serving, settings
from helpers.streams import simple_text_response

from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn import attachments as att
from rivulet.core.turn import rewind as rw
from rivulet.core.turn.conversation import Conversation


def _answers(n: int) -> list[bytes]:
    return [simple_text_response(f"answer {i}", f"r{i}", f"m{i}") for i in range(1, n + 1)]


async def test_editing_an_earlier_message_cuts_history_there_and_the_edit_goes_out(tmp_path):
    requests: list[httpx.Request] = []
    writer, meta = SessionWriter.create(model="m", base_url="http://x", directory=tmp_path)
    conv = Conversation(settings(), serving(*_answers(4), requests=requests), session=writer)
    for prompt in ("one", "two", "three"):
        await conv.run_turn(prompt)
    assert [t.turn_id for t in rw.user_turns(conv.history)] == [1, 2, 3]
    draft = rw.rewind(conv, 2)
    assert (draft.turn_id, draft.prompt, draft.attachments) == (2, "two", ())
    assert [i.get("role") for i in conv.history.items] == ["user", "assistant"]  # turn 1 only
    result = await conv.run_turn(draft.prompt + ", edited")
    assert result.turn_id == 4  # never reuses a number
    sent = json.loads(requests[-1].content)["input"]
    assert [i["content"][0]["text"] for i in sent] == ["one", "answer 1", "two, edited"]
    # The file: a truncation marked as an edit, the old branch above it, the new one after.
    writer.close()
    records = [json.loads(line) for line in meta.path.read_text().splitlines()]
    cut = next(r for r in records if r["type"] == "truncate")
    assert cut == {"type": "truncate", "length": 2, "reason": "edit", "dropped": 4, "time": cut["time"]}
    before_cut = records[:records.index(cut)]
    assert any(r["type"] == "item" and r["item"]["content"][0]["text"] == "three" for r in before_cut)
    loaded = load_session(meta.path)
    assert loaded.history.items == conv.history.items and loaded.warnings == []
    (branch,) = loaded.history.branches
    assert branch.at == 2 and [e.item["content"][0]["text"] for e in branch.entries] == [
        "two", "answer 2", "three", "answer 3"]


async def test_the_last_message_by_default_with_its_attachments(tmp_path):
    (tmp_path / "a.txt").write_text("alpha")
    (tmp_path / "p.png").write_bytes(PNG)
    files = (att.attach("a.txt", tmp_path), att.attach("p.png", tmp_path))
    requests: list[httpx.Request] = []
    conv = Conversation(settings(), serving(*_answers(3), requests=requests))
    await conv.run_turn("first")
    await conv.run_turn("look", files)
    draft = rw.rewind(conv)
    assert draft.prompt == "look" and draft.attachments == files  # as recorded, parts and all
    assert len(conv.history) == 2
    await conv.run_turn("look again", draft.attachments)
    resent = json.loads(requests[-1].content)["input"][-1]["content"]
    assert resent[0]["text"] == "look again"
    assert resent[1:] == json.loads(requests[1].content)["input"][-1]["content"][1:]


async def test_a_rewind_after_a_model_switch_keeps_the_current_model():
    conv = Conversation(settings(model="a"), serving(*_answers(3)))
    await conv.run_turn("one")
    conv.set_model("b")
    await conv.run_turn("two")
    rw.rewind(conv, 1)
    assert conv.history.models == [(0, "b")] and conv.settings.model == "b"


async def test_nothing_to_edit_and_unknown_turns_say_so():
    conv = Conversation(settings(), serving(*_answers(1)))
    with pytest.raises(rw.RewindError, match="no message of yours to edit"):
        rw.rewind(conv)
    await conv.run_turn("one")
    with pytest.raises(rw.RewindError, match="turn 7 is not in the history"):
        rw.rewind(conv, 7)
    assert len(conv.history) == 2


def test_a_foreign_or_shorthand_message_still_gives_a_draft():
    assert rw.draft_of(1, {"type": "message", "role": "user", "content": "plain"}).prompt == "plain"
    bare = {"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "see"}, {"type": "input_image", "image_url": "https://x/y.png", "detail": "low"}]}
    draft = rw.draft_of(1, bare)
    assert draft.prompt == "see" and draft.attachments[0].kind == "image"
    assert draft.attachments[0].parts == (bare["content"][1],)


async def test_the_sessions_list_shows_the_first_prompt_without_attachments_or_summaries(tmp_path):
    from rivulet.core.turn import compaction as cp

    (tmp_path / "a.txt").write_text("alpha")
    writer, meta = SessionWriter.create(model="m", base_url="http://x", directory=tmp_path / "s")
    conv = Conversation(settings(compaction="summary"), serving(*_answers(3)), session=writer)
    await conv.run_turn("explain", [att.attach("a.txt", tmp_path)])
    await cp.compact(conv)
    writer.close()
    loaded = load_session(meta.path)
    assert loaded.history.items[0]["content"][0]["text"].startswith("<conversation_summary>")
    assert loaded.first_prompt == "explain"
