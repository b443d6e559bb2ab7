"""`rivulet sessions search QUERY` (issue 40): one line per session that said it, newest
first, this directory's unless --all; --json; exit 0 with hits, 1 with none, 2 on a bad
query."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from rivulet.core import items as it
from rivulet.core.store.session import SessionWriter
from rivulet.core.turn.history import History


def make_session(folder: Path, cwd: Path, prompt: str, at: float) -> str:
    writer, meta = SessionWriter.create(model="m", base_url="u", cwd=str(cwd), directory=folder)
    History(observers=[writer.observe]).append(it.user_message(prompt), key="user-1", at=at)
    writer.close()
    assert meta.path is not None  # started at `at` too: the order is the test's, whatever the clock
    meta.path.write_text(meta.path.read_text().replace(f'"created":{meta.created}', f'"created":{at - 1}', 1))
    return meta.id


def cli(*args: str, sessions: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RIVULET_"))}
    env.update({"RIVULET_SESSIONS_DIR": str(sessions), "RIVULET_CONFIG": os.devnull})
    return subprocess.run([sys.executable, "-m", "rivulet.app", "sessions", "search", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


def test_hits_are_this_directorys_sessions_newest_first_with_the_match_marked(tmp_path):
    store, here, there = tmp_path / "s", tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    old = make_session(store, here, "where do otters sleep?", 1000)
    new = make_session(store, here, "otters \x1b[31mred\x1b[0m again", 2000)
    elsewhere = make_session(store, there, "otters elsewhere", 3000)
    make_session(store, here, "nothing to do with it", 4000)
    proc = cli("otters", sessions=store, cwd=here)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert [line.split()[2] for line in lines] == [new, old]
    assert lines[0].endswith(f"{new}  «otters» ␛[31mred␛[0m again")  # sanitised: no escape reaches the terminal
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", lines[1][:16])
    proc = cli("otters", "--all", sessions=store, cwd=here)
    lines = proc.stdout.splitlines()
    assert [line.split()[2] for line in lines] == [elsewhere, new, old]
    assert lines[0].split()[3] == str(there) and "«otters» elsewhere" in lines[0]


def test_json_is_one_object_per_hit(tmp_path):
    store, here = tmp_path / "s", tmp_path / "here"
    here.mkdir()
    old = make_session(store, here, "the capybara's pool", 1000)
    new = make_session(store, here, "a capybara at noon", 2000)
    proc = cli("capybara", "--json", sessions=store, cwd=here)
    assert proc.returncode == 0
    hits = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [h["session"] for h in hits] == [new, old]
    assert hits[0] | {"path": None} == {"session": new, "path": None, "workspace": str(here), "created": 1999.0,
                                        "last": 2000.0, "turn": 1, "kind": "user",
                                        "time": 2000.0, "hits": 1, "snippet": "a «capybara» at noon"}
    assert hits[0]["path"] == str(store / f"{new}.jsonl")
    proc = cli("capybara", "--json", "--limit", "1", sessions=store, cwd=here)
    assert [json.loads(line)["session"] for line in proc.stdout.splitlines()] == [new]


def test_no_hit_is_exit_1_and_a_bad_query_exit_2_in_one_line(tmp_path):
    store, here = tmp_path / "s", tmp_path / "here"
    here.mkdir()
    make_session(store, here, "a quiet session", 1000)
    proc = cli("walrus", sessions=store, cwd=here)
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == f"rivulet: no session started in {here} (--all: every directory) matches walrus\n"
    proc = cli('"walrus', sessions=store, cwd=here)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("rivulet: error: not a search query (unterminated string): put words with "
                           "punctuation in double quotes\n")
