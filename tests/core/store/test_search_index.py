"""The sessions' search index (issue 40): what each kind of item gives it, how it catches
up with the files (new lines only, a torn line, a fork, a replaced or deleted file), and a
corrupt index made again."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from rivulet.core import items as it
from rivulet.core.store.search_index import CALL_CAP, BadQuery, SearchIndex, index_path
from rivulet.core.store.session import SessionWriter, load_session, open_for_resume
from rivulet.core.turn.history import History


def answer(text: str) -> dict:
    return {"type": "message", "role": "assistant", "id": "msg", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


class Writer:
    """A session written by the real writer, one turn at a time."""

    def __init__(self, folder: Path, cwd: str = "/work") -> None:
        self.writer, self.meta = SessionWriter.create(model="m", base_url="u", cwd=cwd, directory=folder)
        self.history = History(observers=[self.writer.observe])
        self.turns = 0

    @property
    def path(self) -> Path:
        assert self.meta.path is not None
        return self.meta.path

    def turn(self, prompt: str, *items: dict, at: float | None = None) -> None:
        self.turns += 1
        self.writer.turn_started(self.turns, prompt)
        self.history.append(it.user_message(prompt), key=f"user-{self.turns}", at=at)
        for item in items:
            self.history.append(item, at=at)
        self.writer.turn_ended(self.turns, None, "completed")

    def close(self) -> None:
        self.writer.close()


def session(folder: Path, *prompts: str, cwd: str = "/work", at: float | None = None) -> Writer:
    w = Writer(folder, cwd)
    for prompt in prompts:
        w.turn(prompt, answer(f"the answer to {prompt}"), at=at)
    w.close()
    return w


def ids(hits: list) -> list[str]:
    return [h.session for h in hits]


def test_each_kind_gives_what_it_shows_with_its_turn_and_name(tmp_path):
    w = Writer(tmp_path)
    w.turn("first question")
    w.turn("build it",
           {"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "**Pondering** zebras"}]},
           {"type": "function_call", "id": "fc", "call_id": "c1", "name": "shell",
            "arguments": '{"command": ["make", "quokka"]}'},
           {"type": "function_call_output", "call_id": "c1", "output": "wombat " * 2000 + "numbat"},
           {"type": "web_search_call", "id": "ws", "status": "completed",
            "action": {"type": "search", "query": "platypus habitat"}},
           answer("done with the capybara"))
    w.close()
    with SearchIndex(tmp_path) as index:
        index.update()
        found = {q: index.search(q)[0] for q in ("zebras", "quokka", "wombat", "platypus", "capybara", "build")}
        assert index.search("numbat") == []  # past the output's cap
    assert {q: (h.kind, h.turn) for q, h in found.items()} == {
        "zebras": ("reasoning", 2), "quokka": ("call", 2), "wombat": ("output", 2), "platypus": ("hosted", 2),
        "capybara": ("answer", 2), "build": ("user", 2)}
    assert found["capybara"].session == w.meta.id and found["capybara"].cwd == "/work"
    assert len(found["wombat"].snippet) < CALL_CAP
    assert found["capybara"].snippet_parts() == [("done with the ", False), ("capybara", True)]


def test_sessions_newest_first_one_hit_each_and_a_workspace_filter(tmp_path):
    # A session's last activity orders them: its items' times, set past every session's start
    # (at 1000.0 and 2000.0 the start times, made in the same second, decided: a tie, once).
    now = time.time()
    old = session(tmp_path, "tell me about otters", "more otters", at=now + 1000.0)
    new = session(tmp_path, "otters again", cwd="/elsewhere", at=now + 2000.0)
    session(tmp_path, "nothing to see", at=now + 3000.0)
    with SearchIndex(tmp_path) as index:
        index.update()
        hits = index.search("otters")
        assert ids(hits) == [new.meta.id, old.meta.id]
        assert hits[1].hits == 4 and hits[1].turn == 2  # the session's newest hit
        assert ids(index.search("otters", cwd="/work")) == [old.meta.id]
        assert ids(index.search("otters", limit=1)) == [new.meta.id]


def test_a_bad_query_is_one_error_about_the_query(tmp_path):
    with SearchIndex(tmp_path) as index, pytest.raises(BadQuery, match="unterminated string"):
        index.search('"unclosed')


def test_only_new_lines_are_read_and_a_torn_line_waits(tmp_path):
    w = Writer(tmp_path)
    w.turn("the first heron")
    with SearchIndex(tmp_path) as index:
        first = index.update()
        assert (first.files, first.items) == (1, 1)
        assert (index.update().files, index.update().items) == (0, 0)  # nothing new: not even read
        w.turn("a second egret")
        again = index.update()
        assert (again.files, again.items) == (1, 1)  # the new turn only
        assert ids(index.search("heron")) == ids(index.search("egret")) == [w.meta.id]
        w.close()
        # A write cut short: the line is not read until it is whole.
        with open(w.path, "ab") as f:
            f.write(b'{"type":"item","seq":9,"key":"user-3","time":5.0,"item":{"type":"message","role":"user",'
                    b'"content":[{"type":"input_text","text":"a torn pelican')
        assert index.update().items == 0 and index.search("pelican") == []
        with open(w.path, "ab") as f:
            f.write(b'"}]}}\n')
        assert index.update().items == 1
        [hit] = index.search("pelican")
        assert hit.turn == 3 and hit.snippet_parts()[1] == ("pelican", True)


def test_a_forked_session_is_its_own_and_the_original_stays(tmp_path):
    w = Writer(tmp_path)
    w.turn("the lemur question")
    with SearchIndex(tmp_path) as index:
        index.update()
        # Another process holds the file: resuming it forks a copy (core/store/session.py).
        writer, forked = open_for_resume(w.path, load_session(w.path))
        History(observers=[writer.observe]).append(it.user_message("only in the fork: gibbon"), key="user-2")
        writer.close()
        w.close()
        index.update()
        assert sorted(ids(index.search("lemur"))) == sorted([w.meta.id, forked.meta.id])
        assert ids(index.search("gibbon")) == [forked.meta.id]


def test_a_file_replaced_under_its_name_is_read_again_and_a_deleted_one_goes(tmp_path):
    keep = session(tmp_path, "keep the bison")
    gone = session(tmp_path, "the moose goes")
    with SearchIndex(tmp_path) as index:
        index.update()
        # Another file under the same name (a new inode): its rows replace the old ones.
        other = Writer(tmp_path / "other")
        other.turn("replaced by an ibex")
        other.close()
        os.replace(other.path, keep.path)
        gone.path.unlink()
        count = index.update()
        assert count.removed == 1
        assert index.search("bison") == [] and index.search("moose") == []
        assert ids(index.search("ibex")) == [keep.meta.id]


def test_a_corrupt_index_is_made_again_from_the_files(tmp_path):
    w = session(tmp_path, "the narwhal")
    path = index_path(tmp_path)
    path.write_bytes(b"this is no database " * 100)
    with SearchIndex(tmp_path) as index:
        index.update()
        assert index.rebuilt and ids(index.search("narwhal")) == [w.meta.id]
    # A database cut in half (a disk that lost its tail): found out on the way, made again.
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with SearchIndex(tmp_path) as index:
        index.update()
        assert index.rebuilt and ids(index.search("narwhal")) == [w.meta.id]


def test_the_index_is_private(tmp_path):
    session(tmp_path, "a secret")
    with SearchIndex(tmp_path) as index:
        index.update()
    assert stat.S_IMODE(index_path(tmp_path).stat().st_mode) == 0o600


def test_a_snippet_is_one_sanitised_line_whose_marks_the_text_cannot_forge(tmp_path):
    session(tmp_path, "\x02forged\x03 mark and\n\x1b[2J an escape before the tapir")
    with SearchIndex(tmp_path) as index:
        index.update()
        [hit] = index.search("tapir")
    assert hit.snippet_parts() == [("the answer to forged mark and ␛[2J an escape before the ", False), ("tapir", True)]


def test_a_common_word_asks_the_newest_sessions_one_by_one_and_finds_the_same(tmp_path, monkeypatch):
    """Past PROBE_OVER hits the sessions are asked newest first (a seek each) instead of
    grouping every hit: the same sessions, hits, turns and snippets either way."""
    from rivulet.core.store import search_index

    for n in range(6):
        session(tmp_path, *[f"walrus {n} {t}" for t in range(3)], cwd="/work" if n % 2 else "/else", at=1000.0 + n)
    with SearchIndex(tmp_path) as index:
        index.update()
        grouped = [index.search("walrus", limit=4), index.search("walrus", cwd="/work"), index.search("walrus 3")]
        monkeypatch.setattr(search_index, "PROBE_OVER", 1)
        probed = [index.search("walrus", limit=4), index.search("walrus", cwd="/work"), index.search("walrus 3")]
    assert probed == grouped
    assert [len(g) for g in grouped] == [4, 3, 1] and grouped[0][0].hits == 6  # 3 prompts, 3 answers


def test_processes_opening_a_new_index_at_once_share_it(tmp_path):
    """The chat's indexer and a search may both find no index: one makes its tables, the
    other waits for them; neither takes the other's for a damaged one."""
    from concurrent.futures import ThreadPoolExecutor

    w = session(tmp_path, "a yak")

    def open_and_ask(_: int) -> tuple[bool, list[str]]:
        with SearchIndex(tmp_path) as index:
            index.update()
            return index.rebuilt, ids(index.search("yak"))

    for _ in range(5):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index_path(tmp_path)}{suffix}").unlink(missing_ok=True)
        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(open_and_ask, range(4))) == [(False, [w.meta.id])] * 4


def test_a_compactions_items_are_found_and_their_snippet_read_back_from_the_file(tmp_path):
    """The index keeps no copy of the text: a hit's snippet is its line read again, here
    the second item of a compaction's list."""
    import json

    w = session(tmp_path, "before the summary")
    summary = [it.user_message("an earlier note"), it.user_message("<conversation_summary>the gazelle ran")]
    with open(w.path, "a") as f:
        f.write(json.dumps({"type": "compact", "number": 1, "mode": "summary", "replaced": 2, "items": summary,
                            "summary": "the gazelle ran", "time": 5.0}) + "\n")
    with SearchIndex(tmp_path) as index:
        index.update()
        [hit] = index.search("gazelle")
    assert (hit.kind, hit.snippet_parts()) == ("user", [("<conversation_summary>the ", False), ("gazelle", True),
                                                        (" ran", False)])


def test_a_forgotten_files_rows_past_the_live_ones_make_the_index_again(tmp_path, monkeypatch):
    from rivulet.core.store import search_index

    monkeypatch.setattr(search_index, "STALE_MIN", 0)
    keep = session(tmp_path, "the kept ocelot")
    gone = session(tmp_path, "an ocelot", "two ocelots", "three ocelots")
    with SearchIndex(tmp_path) as index:
        index.update()
        gone.path.unlink()
        index.update()  # forgotten: 6 rows stay in the full-text table, unseen
        assert ids(index.search("ocelot")) == [keep.meta.id] and not index.rebuilt
        index.update()  # 6 forgotten rows against 2 live ones: made again
        assert index.rebuilt and ids(index.search("ocelot")) == [keep.meta.id]
