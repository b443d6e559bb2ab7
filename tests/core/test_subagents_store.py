"""Issue 41: what subagents leave in the session file is found again: by the loader (under
its call), the search index (with the parent's turn), and the export (nested under the call)."""

from __future__ import annotations

import json

from rivulet.core import items as it
from rivulet.core.store.export import to_json, to_markdown
from rivulet.core.store.search_index import SearchIndex
from rivulet.core.store.session import SessionWriter, load_session
from rivulet.core.turn.history import History

CALL = {"type": "function_call", "id": "fc", "call_id": "call_a", "name": "spawn_agent",
        "arguments": json.dumps({"task": "find it", "name": "finder"})}


def _answer(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": "m", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _session_with_a_subagent(tmp_path):
    writer, meta = SessionWriter.create(model="m", base_url="u", cwd="/work", directory=tmp_path)
    history = History(observers=[writer.observe])
    writer.turn_started(1, "go")
    history.append(it.user_message("go"), key="user-1")
    history.append(CALL)
    writer.subagent_item("call_a", "sa-1", "finder", it.user_message("find the wombat"), 1.0)
    writer.subagent_item("call_a", "sa-1", "finder", _answer("the numbat is under the bed"), 2.0)
    history.append({"type": "function_call_output", "call_id": "call_a", "output": "it is found"})
    history.append(_answer("found it"))
    writer.turn_ended(1, None, "completed")
    writer.close()
    assert meta.path is not None
    return meta.path


def test_the_loader_keeps_a_subagents_items_under_its_call(tmp_path):
    session = load_session(_session_with_a_subagent(tmp_path))
    assert [it.message_text(i) for i in session.subagent_items["call_a"]] == [
        "find the wombat", "the numbat is under the bed"]
    assert session.subagents == {"call_a": ("sa-1", "finder")}
    assert not session.warnings  # a known record
    assert len(session.history) == 4  # none of them in the conversation's history


def test_the_search_index_finds_a_subagents_text_in_its_parents_turn(tmp_path):
    _session_with_a_subagent(tmp_path)
    with SearchIndex(tmp_path) as index:
        index.update()
        (task,) = index.search("wombat")  # (words nowhere but in the subagent's items)
        (answer,) = index.search("numbat")
    assert (task.kind, task.turn) == ("user", 1) and (answer.kind, answer.turn) == ("answer", 1)


def test_the_export_shows_a_subagents_items_nested_under_its_call(tmp_path):
    session = load_session(_session_with_a_subagent(tmp_path))
    md = to_markdown(session)
    nested = md.index("Subagent 'finder'")
    assert md.index("spawn_agent") < nested < md.index("found it")
    assert "> the numbat is under the bed" in md[nested:]
    data = json.loads(to_json(session))
    assert [i["item"]["type"] for i in data["subagents"]["call_a"]["items"]] == ["message", "message"]
    assert data["subagents"]["call_a"]["name"] == "finder"


async def test_tools_of_subagents_starting_at_once_take_the_turns_walk_before_once(tmp_path, monkeypatch):
    """Two subagents' first tools wait for the turn's walk together: one walk, taken before
    either runs (a second walk, finished after the first tool wrote, would hide that write
    from /undo)."""
    import asyncio

    from rivulet.core.checkpoints.turns import TurnCheckpoints

    ws = tmp_path / "ws"
    ws.mkdir()
    cps = TurnCheckpoints(ws, "S1", root=tmp_path / "data")
    walks: list[int] = []
    take = TurnCheckpoints._take

    def counted(self: TurnCheckpoints):
        walks.append(1)
        return take(self)

    monkeypatch.setattr(TurnCheckpoints, "_take", counted)
    await asyncio.gather(cps.before_tool("one"), cps.before_tool("two"), cps.before_tool("three"))
    assert len(walks) == 1
    (ws / "made").write_text("x\n")
    cps.end_turn(1)
    cp = cps.wait()
    assert cp is not None and [c.path for c in cp.changes] == ["made"] and cp.commands == ["one", "two", "three"]
