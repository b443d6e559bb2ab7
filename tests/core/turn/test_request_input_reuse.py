"""Issue 22: a request's input is the whole history, but only the entries added since
the last settled request are normalised again. What is reused must always equal what
normalising all of history gives, whatever happened to history in between."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rivulet.core import items as it
from rivulet.core.turn import history as history_module
from rivulet.core.turn.history import History, normalize


def _from_scratch(history: History, store: bool) -> list[it.Item]:
    return [history_module._as_input(i, store) for i in normalize([e.item for e in history.entries])]


def _turn(history: History, n: int, *, answered: bool = True) -> None:
    history.append(it.user_message(f"q{n}"), key=f"u{n}")
    history.append({"type": "function_call", "id": f"fc{n}", "call_id": f"c{n}", "name": "t", "arguments": "{}"},
                   f"r{n}", f"fc{n}")
    if answered:
        history.append({"type": "function_call_output", "call_id": f"c{n}", "output": "ok"}, key=f"c{n}:o")
    history.append({"type": "message", "id": f"m{n}", "role": "assistant",
                    "content": [{"type": "output_text", "text": f"a{n}"}]}, f"r{n}", f"m{n}")


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    real = history_module._normalize

    def counted(items: list[it.Item], *args: Any) -> Any:
        seen.append(len(items))
        return real(items, *args)

    monkeypatch.setattr(history_module, "_normalize", counted)
    return seen


def test_a_request_normalises_only_what_came_since_the_last_one(monkeypatch: pytest.MonkeyPatch) -> None:
    history = History()
    for n in range(500):
        _turn(history, n)
    seen = _counting(monkeypatch)
    first = history.to_input()
    _turn(history, 500)
    second = history.to_input()
    assert seen == [2000, 4]  # before: 2,000 then 2,004
    assert second == _from_scratch(history, False) and second[:2000] == first


def test_an_unanswered_call_is_normalised_again_until_it_is_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    history = History()
    _turn(history, 0)
    _turn(history, 1, answered=False)
    seen = _counting(monkeypatch)
    sent = history.to_input()
    assert [i["type"] for i in sent[4:]] == ["message", "function_call", "function_call_output", "message"]
    assert sent[6]["output"] != "ok"  # the aborted output stands in for the missing one
    history.append({"type": "function_call_output", "call_id": "c1", "output": "ok"}, key="c1:o")
    answered = history.to_input()
    _turn(history, 2)
    history.to_input()
    assert seen == [7, 8, 4]  # all again while a call waits (the aborted output goes), then only the new turn
    assert [i.get("output") for i in answered if "output" in i] == ["ok", "ok"]
    assert history.to_input() == _from_scratch(history, False)


def test_a_request_after_a_cut_or_a_compaction_is_built_from_the_history_left() -> None:
    history = History()
    for n in range(3):
        _turn(history, n)
    history.to_input()
    history.truncate(6)
    _turn(history, 9)
    assert history.to_input() == _from_scratch(history, False)
    history.to_input(store=True)
    history.compact(5, [it.user_message("summary")], mode="summary")
    assert history.to_input(store=True) == _from_scratch(history, True)
    history.rewind(2)
    assert history.to_input(store=True) == _from_scratch(history, True)


def test_the_input_handed_out_is_the_callers_own() -> None:
    history = History()
    _turn(history, 0)
    history.to_input().clear()
    _turn(history, 1)
    assert history.to_input() == _from_scratch(history, False)


_ITEM = st.sampled_from(["user", "call", "output", "orphan", "dup", "hosted", "nocid", "message"])
_STEP = st.one_of(
    st.tuples(st.just("item"), _ITEM, st.integers(0, 5)),
    st.tuples(st.just("request"), st.booleans(), st.just(0)),
    st.tuples(st.just("truncate"), st.just(""), st.integers(0, 30)),
    st.tuples(st.just("rewind"), st.just(""), st.integers(0, 30)),
    st.tuples(st.just("compact"), st.just(""), st.integers(0, 30)),
    st.tuples(st.just("reorder"), st.just(""), st.integers(0, 5)),
)


def _make(kind: str, n: int, serial: int) -> it.Item:
    cid = f"c{n}"
    return {
        "user": it.user_message(f"q{serial}"),
        "call": {"type": "function_call", "id": f"fc{serial}", "call_id": cid, "name": "t", "arguments": "{}"},
        "output": {"type": "function_call_output", "call_id": cid, "output": f"o{serial}"},
        "orphan": {"type": "function_call_output", "call_id": f"gone{n}", "output": "x"},
        "dup": {"type": "function_call_output", "call_id": cid, "output": f"again{serial}"},
        "hosted": {"type": "shell_call", "id": f"sh{serial}", "call_id": f"h{n}", "environment": {"type": "container"},
                   "action": {"commands": ["ls"]}},
        "nocid": {"type": "function_call", "id": f"fx{serial}", "name": "t", "arguments": "{}"},
        "message": {"type": "message", "id": f"m{serial}", "role": "assistant", "content": []},
    }[kind]


@settings(max_examples=300, deadline=None)
@given(st.lists(_STEP, max_size=60))
def test_whatever_happens_to_history_the_request_is_what_normalising_it_all_gives(steps: list[Any]) -> None:
    history = History()
    for serial, (op, arg, n) in enumerate(steps):
        if op == "item":
            history.append(_make(arg, n, serial), f"seg{n}", f"k{serial}")
        elif op == "request":
            assert history.to_input(store=arg) == _from_scratch(history, arg)
        elif op == "truncate":
            history.truncate(min(n, len(history)))
        elif op == "rewind":
            history.rewind(min(n, len(history)))
        elif op == "compact" and n <= len(history):
            history.compact(n, [it.user_message(f"summary {serial}")], mode="summary")
        elif op == "reorder":
            keys = [e.key or "" for e in history.entries if e.segment == f"seg{n}"]
            history.reorder_response(f"seg{n}", keys[::-1])
    for store in (False, True):
        assert history.to_input(store=store) == _from_scratch(history, store)
